// How `serve` finds, adopts or starts the voice keeper of its data directory (keeper-main.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../lib/logger.ts';
import {
  keeperFiles,
  readLines,
  sendLine,
  type KeeperInput,
  type KeeperReply,
  type KeeperRequest,
  type KeeperState,
} from './keeper-protocol.ts';
import type { SandboxRing } from './sandbox-caller.ts';

const KEEPER = new URL('./keeper-main.ts', import.meta.url);

/** How long a keeper gets to answer a request (stopping its programs takes up to 3 s each). */
const ANSWER_MS = 15_000;

type Request = { op: KeeperRequest['op']; call?: SandboxRing };

/** A `serve`'s connection to a keeper: while it is open, the keeper is this serve's. */
export interface KeeperLink {
  ask(request: Request): Promise<KeeperReply>;
  /** Resolves once the keeper has closed the connection (it stopped), or after `ms`. */
  closed(ms: number): Promise<void>;
  close(): void;
}

/** Connects to the keeper of `dataDir`; null when none listens. */
export function connectKeeper(dataDir: string): Promise<KeeperLink | null> {
  return new Promise((resolve) => {
    const socket = createConnection(keeperFiles(dataDir).socket);
    socket.once('error', () => resolve(null));
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(link(socket));
    });
  });
}

function link(socket: Socket): KeeperLink {
  const waiting = new Map<number, (reply: KeeperReply) => void>();
  let next = 0;
  const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  socket.on('close', () => {
    for (const answer of waiting.values()) answer({ n: -1, error: 'the voice keeper is gone' });
    waiting.clear();
  });
  readLines(socket, (message) => {
    const reply = message as KeeperReply;
    waiting.get(reply.n)?.(reply);
    waiting.delete(reply.n);
  });
  return {
    ask(request) {
      const n = ++next;
      return new Promise((resolve) => {
        if (socket.destroyed) return resolve({ n, error: 'the voice keeper is gone' });
        const timer = setTimeout(() => {
          waiting.delete(n);
          resolve({ n, error: 'the voice keeper did not answer' });
        }, ANSWER_MS);
        waiting.set(n, (reply) => {
          clearTimeout(timer);
          resolve(reply);
        });
        sendLine(socket, { n, ...request });
      });
    },
    async closed(ms) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([gone, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    },
    close: () => socket.destroy(),
  };
}

/** A keeper being started, which `serve` may give up on while it starts (a SIGTERM then). */
export interface StartingKeeper {
  /** Its state once it runs, attached to this serve. */
  ready: Promise<{ link: KeeperLink; state: KeeperState }>;
  abort(): void;
}

/**
 * Starts a keeper in a session of its own (it outlives this process when calls need it). Its
 * stdin stays open until it is attached: a `serve` that dies before then takes it along.
 */
export function startKeeper(input: KeeperInput, logger: Logger): StartingKeeper {
  mkdirSync(input.dataDir, { recursive: true });
  const log = openSync(keeperFiles(input.dataDir).log, 'w', 0o600);
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [fileURLToPath(KEEPER)], {
      detached: true,
      stdio: ['pipe', 'pipe', log],
    });
  } finally {
    closeSync(log);
  }
  child.stdin!.on('error', () => {});
  child.stdin!.write(JSON.stringify(input) + '\n');
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(`exited (${signal ?? code})`)),
  );
  const ready = (async () => {
    const first = createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
    const line = await Promise.race([first, exited]);
    const said =
      typeof line === 'string' || line.done
        ? null
        : (JSON.parse(line.value) as { ready?: KeeperState; error?: string });
    if (!said?.ready) {
      throw new Error(`The voice keeper did not start: ${said?.error ?? (await exited)}`);
    }
    const linked = await connectKeeper(input.dataDir);
    const answer = await linked?.ask({ op: 'attach' });
    if (!linked || !answer?.state) throw new Error('The voice keeper did not take this serve.');
    child.stdin!.end();
    child.stdout!.destroy();
    child.unref();
    logger.debug({ pid: child.pid }, 'voice keeper started');
    return { link: linked, state: answer.state };
  })();
  ready.catch(() => child.kill('SIGTERM'));
  return { ready, abort: () => child.kill('SIGTERM') };
}
