// The voice keeper: a process of its own session, started by `serve` (keeper-client.ts), that
// runs the voice stack (Kamailio, rtpengine, the far end; they die with it) so that a call in
// progress outlives a restart of `serve`. Once its `serve` is gone, it stops at once when no call
// is in progress; otherwise it waits for a `serve` to adopt it (same data directory and control
// URL) until its calls end, KEEP_CALLS_MS at most. Its log is the data directory's
// voice-keeper.log (its stderr).
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { createLogger } from '../lib/logger.ts';
import { voiceRunId } from './ephemeral-credentials.ts';
import { kamailioDialogs } from './kamailio-dialogs.ts';
import {
  keeperFiles,
  readLines,
  sendLine,
  type KeeperInput,
  type KeeperRequest,
  type KeeperState,
} from './keeper-protocol.ts';
import { startVoiceStack, type VoiceStack } from './voice-stack.ts';

/** Longest a keeper stays for calls without a `serve`: Kamailio's own limit on a dialog (4 h). */
export const KEEP_CALLS_MS = 4 * 60 * 60 * 1000;
/** How often an unattended keeper asks Kamailio whether its calls still run. */
const WATCH_MS = 1000;
/** Kamailio not answering this many times in a row: nothing is known to run. */
const UNANSWERED_MAX = 3;

const input = await firstLine();
const files = keeperFiles(input.dataDir);
const logger = createLogger(input.logLevel, process.stderr);
let stack: VoiceStack | null = null;
let serve: Socket | null = null;
let attachedOnce = false;
let watch: NodeJS.Timeout | null = null;
let stopping = false;
/** When each call was last seen running while no serve was attached; told to the next one. */
let seen: Record<string, number> = {};

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => void shutdown(`${signal} received`));
}
process.on('SIGHUP', () => {});
process.on('uncaughtException', (error) => {
  logger.error({ err: error }, 'voice keeper failed');
  void shutdown('failed');
});
// Until a `serve` has attached, its stdin is the only sign of it: a `serve` that dies while
// voice starts leaves nothing behind.
process.stdin.on('close', () => {
  if (!attachedOnce) void shutdown('serve went away while voice started');
});
process.stdin.resume();
process.stdout.on('error', () => {});

try {
  stack = await startVoiceStack({
    host: input.host,
    controlUrl: input.controlUrl,
    secrets: input.secrets,
    logger,
    tls: input.tls,
  });
} catch (error) {
  process.stdout.write(JSON.stringify({ error: (error as Error).message }) + '\n');
  process.exit(1);
}
const state: KeeperState = {
  id: input.id,
  pid: process.pid,
  host: input.host,
  controlUrl: input.controlUrl,
  tls: input.tls,
  runId: voiceRunId(input.secrets),
  endpoint: {
    sipPort: stack.sipPort,
    tlsPort: stack.tlsPort,
    wsUrl: stack.wsUrl,
    farEnd: stack.farEnd,
    rtpenginePort: stack.rtpenginePort,
  },
};
rmSync(files.socket, { force: true });
const server = createServer(talk);
await new Promise<void>((resolve) => server.listen(files.socket, resolve));
chmodSync(files.socket, 0o600);
writeFileSync(files.state, JSON.stringify(state), { mode: 0o600 });
process.stdout.write(JSON.stringify({ ready: state }) + '\n');

/** One connection from a `serve`: it attaches (adopts), rings, leaves, or stops the keeper. */
function talk(socket: Socket): void {
  socket.on('error', () => {});
  socket.on('close', () => {
    if (socket !== serve) return;
    serve = null;
    void serveGone();
  });
  readLines(socket, (message) => {
    const request = message as KeeperRequest;
    switch (request.op) {
      case 'attach':
        if (serve && serve !== socket && !serve.destroyed) {
          return sendLine(socket, { n: request.n, busy: true });
        }
        serve = socket;
        attachedOnce = true;
        if (watch) clearInterval(watch);
        watch = null;
        logger.info('voice keeper attached to serve');
        sendLine(socket, { n: request.n, state, seen });
        seen = {};
        return;
      case 'ring':
        return void stack!.ring(request.call).then(
          () => sendLine(socket, { n: request.n }),
          (error: Error) => sendLine(socket, { n: request.n, error: error.message }),
        );
      case 'leave':
        if (socket === serve) serve = null;
        return void serveGone((staying) => sendLine(socket, { n: request.n, staying }));
      case 'stop':
        return void shutdown('asked to stop by serve');
      default:
        socket.destroy();
    }
  });
}

/** Its `serve` left or died: stop now unless calls run, else watch them. */
async function serveGone(answer: (staying: number) => void = () => {}): Promise<void> {
  let calls = await dialogs();
  for (let tries = 1; calls === null && tries < UNANSWERED_MAX; tries++) calls = await dialogs();
  if (serve) return answer(0);
  if (!calls || calls.length === 0) {
    answer(0);
    return shutdown('serve is gone and no call is in progress');
  }
  answer(calls.length);
  const at = Date.now();
  for (const id of calls) seen[id] = at;
  logger.info({ calls: calls.length }, 'serve is gone; kept for the calls in progress');
  const since = Date.now();
  let unanswered = 0;
  let asking = false;
  if (watch) clearInterval(watch);
  watch = setInterval(() => {
    if (asking) return;
    asking = true;
    void dialogs().then((held) => {
      asking = false;
      if (serve) return;
      unanswered = held === null ? unanswered + 1 : 0;
      const at = Date.now();
      for (const id of held ?? []) seen[id] = at;
      if (held?.length === 0 || unanswered >= UNANSWERED_MAX) {
        void shutdown('the calls kept for are over');
      } else if (Date.now() - since > KEEP_CALLS_MS) {
        void shutdown('no serve adopted the calls in time');
      }
    });
  }, WATCH_MS);
}

function dialogs(): Promise<string[] | null> {
  if (!stack) return Promise.resolve([]);
  const endpoint = { wsUrl: stack.wsUrl, sipHost: `${input.host}:${stack.sipPort}` };
  return kamailioDialogs({ secrets: input.secrets, endpoint });
}

/** Stops the stack, removes its socket and state (when still this keeper's) and exits. */
async function shutdown(why: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ why }, 'voice keeper stopping');
  if (watch) clearInterval(watch);
  try {
    if (JSON.parse(readFileSync(files.state, 'utf8')).id === input.id) {
      rmSync(files.state, { force: true });
      rmSync(files.socket, { force: true });
    }
  } catch {
    // No state file: nothing of this keeper's to remove.
  }
  await stack?.stop();
  serve?.destroy();
  process.exit(0);
}

async function firstLine(): Promise<KeeperInput> {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) return JSON.parse(line) as KeeperInput;
  process.exit(1);
}
