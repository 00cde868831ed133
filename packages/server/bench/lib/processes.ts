// Child processes of the bench: the service, the CLI, the reference server and the webhook
// receiver, each on 127.0.0.1 only, plus what /proc says about them (CPU time, peak RSS).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReceiverStats } from '../receiver.ts';

/** The server's entry point and the bench folder. */
/** The `switchboard` command, as `npm start` runs it (with Node's compile cache). */
export const MAIN = join(import.meta.dirname, '..', '..', 'bin', 'switchboard.js');
const BENCH = join(import.meta.dirname, '..');

/** A port the OS reports free right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== 'object') throw new Error('no free port');
  return address.port;
}

/** CPU time (user + system) a process has used so far, in milliseconds. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat(5), counted from after the command name;
  // Linux reports them in clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The peak resident set of a process so far (VmHWM), in MiB. */
export function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

/**
 * Starts a new peak: the process's VmHWM becomes its current resident set (proc(5),
 * `clear_refs`: "5"), so the next `peakRssMb` covers only what ran since.
 */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** The environment of a child: this process's, without Switchboard settings, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(SWITCHBOARD_|DATABASE_URL$|PORT$|HOST$|LOG_LEVEL$)/.test(name)) base[name] = value;
  }
  return { ...base, ...env };
}

/** Runs `switchboard ARGS --json` and returns its JSON document. */
export async function runCli(args: string[], env: Record<string, string>): Promise<any> {
  const child = spawn(process.execPath, [MAIN, ...args, '--json'], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`switchboard ${args.join(' ')} failed (${code}): ${err}`);
  return JSON.parse(out);
}

/** A started child with a pid and a way to stop it. */
export interface Running {
  pid: number;
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

function track(child: ChildProcess, url: string): Running {
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d));
  child.stderr?.on('data', (d: Buffer) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid!,
    url,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Starts `switchboard serve` and waits (at most 30 s) for /healthz. */
export async function startService(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []), MAIN, 'serve'],
    {
      env: childEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const running = track(child, `http://127.0.0.1:${port}`);
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) break;
    const ok = await fetch(`${running.url}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return running;
    await sleep(100);
  }
  await running.stop();
  throw new Error(`switchboard serve did not start:\n${running.output()}`);
}

/** Spawns a bench script that prints `{"port":N}` first, and waits for that line. */
async function startScript(script: string, args: string[], ipc: boolean): Promise<Running> {
  const child = spawn(process.execPath, [join(BENCH, script), ...args], {
    env: childEnv({}),
    stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? (['ipc'] as const) : [])],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (d: Buffer) => {
      buffered += d;
      const line = buffered.split('\n')[0];
      if (buffered.includes('\n') && line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
  return track(child, `http://127.0.0.1:${port}`);
}

/**
 * Starts the reference server (reference-server.ts) on a port the OS picks as it listens
 * (port 0: one found free beforehand could be taken by another process before then).
 */
export async function startReference(
  dataDir: string,
  databaseUrl: string | null,
): Promise<Running> {
  return startScript(
    'reference-server.ts',
    ['0', dataDir, ...(databaseUrl ? [databaseUrl] : [])],
    false,
  );
}

/** Starts the floor server (floor-server.ts) as the reference, with a database of its own. */
export async function startFloor(dataDir: string, databaseUrl: string | null): Promise<Running> {
  return startScript(
    'floor-server.ts',
    ['0', dataDir, ...(databaseUrl ? [databaseUrl] : [])],
    false,
  );
}

/** The webhook receiver (receiver.ts) and its IPC. */
export interface Receiver extends Running {
  stats(reset?: boolean): Promise<ReceiverStats>;
  /** Called with every `message.delivered` arriving on /latency. */
  onDelivered(fn: (messageId: string, at: number) => void): void;
}

/** Starts the webhook receiver in its own process. */
export async function startReceiver(): Promise<Receiver> {
  const running = await startScript('receiver.ts', [], true);
  const listeners: ((messageId: string, at: number) => void)[] = [];
  const waiting: ((stats: ReceiverStats) => void)[] = [];
  running.child.on('message', (m: any) => {
    if (m.type === 'delivered') for (const fn of listeners) fn(m.messageId, m.at);
    if (m.type === 'stats') waiting.shift()?.(m.stats);
  });
  return {
    ...running,
    stats: (reset = false) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        running.child.send({ type: reset ? 'reset' : 'stats' });
      }),
    onDelivered: (fn) => listeners.push(fn),
  };
}
