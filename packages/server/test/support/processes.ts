import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { udpFree } from '../../src/voice/ports.ts';

/** The `switchboard` command (`bin/switchboard.js`, as `npm start` runs it), run by this Node. */
export const MAIN = join(import.meta.dirname, '..', '..', 'bin', 'switchboard.js');

/**
 * The environment of a child `switchboard`: this process's, without any
 * Switchboard setting or test-runner marker that could leak in, plus `env`.
 */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(SWITCHBOARD_|DATABASE_URL$|PORT$|HOST$|LOG_LEVEL$|NODE_TEST)/.test(name)) continue;
    base[name] = value;
  }
  return { ...base, ...env };
}

/** How a finished command went. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `switchboard ARGS` to completion (killed after `timeoutMs`), by `node` (this one). */
export function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
  node = process.execPath,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [MAIN, ...args], {
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Parses the one JSON document a `--json` command prints, failing on anything else. */
export function jsonOutput(result: CliResult): any {
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  if (lines.length !== 1) {
    throw new Error(
      `expected exactly one JSON line on stdout, got ${lines.length}:\n${result.stdout}\nstderr:\n${result.stderr}`,
    );
  }
  return JSON.parse(lines[0]!);
}

/**
 * The ports the kernel hands out by itself, to `listen(0)` and to outgoing connections
 * (Linux's `ip_local_port_range`; its default where the file cannot be read).
 */
function ephemeralPorts(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return { low: low!, high: high! };
  } catch {
    // Not Linux: the IANA range.
  }
  return { low: 49152, high: 65535 };
}

/**
 * Where `freePort` picks from: below the kernel's own ports and above the well-known ones, and
 * below rtpengine's media ranges (30000–40000, src/voice/ports.ts), whose ports are bound only
 * once a call needs them.
 */
export const CHOSEN_PORTS = { low: 10_000, high: Math.min(ephemeralPorts().low, 30_000) - 1 };

/**
 * A port nobody listens on right now, for a child process to listen on later.
 *
 * Picked at random below the kernel's ephemeral range, and tried: a port the kernel gave
 * out and took back would be given again to the next `listen(0)` or outgoing connection
 * of any process, and so a child that starts a second later could find its port taken,
 * or its `/healthz` answered by another test file's server on it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port =
      CHOSEN_PORTS.low + Math.floor(Math.random() * (CHOSEN_PORTS.high - CHOSEN_PORTS.low + 1));
    if (await portFree(port)) return port;
  }
  throw new Error('no free port in 100 tries');
}

/**
 * Free for TCP and for UDP on 127.0.0.1: sipp and Kamailio peers take UDP, and a port another
 * test file's sipp held on UDP alone passed for free, so calls meant for one sipp reached another.
 */
export async function portFree(port: number): Promise<boolean> {
  return (await canListen(port)) && (await udpFree('127.0.0.1', port));
}

/** Whether a server can listen on 127.0.0.1:`port` now (it is closed again at once). */
function canListen(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A `switchboard serve` child process. */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Everything written on stdout so far. */
  stdout(): string;
  /** Everything written on stderr so far. */
  stderr(): string;
  /** Resolves with the exit code once the process has exited (null if by signal). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends SIGTERM and waits up to `timeoutMs` for the exit; SIGKILLs after that. */
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * How long `startServe` waits for `/healthz`. A start takes a second or two alone; under
 * the whole suite on two cores, with more work on the machine besides, one took over
 * 15 s (the bound before this one).
 */
const HEALTHY_WITHIN_MS = 60_000;

/**
 * Starts `switchboard serve` on a free port (or `options.port`) and waits (HEALTHY_WITHIN_MS at most,
 * asking every 100 ms) until `/healthz` answers 200. Fails, with the child's output,
 * if it exits or never answers; the child is killed in that case.
 */
export async function startServe(
  env: Record<string, string>,
  args: string[] = [],
  options: { port?: number } = {},
): Promise<ServeProcess> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [MAIN, 'serve', ...args], {
    // Voice's programs only where a suite asks for them (SWITCHBOARD_VOICE=on): each serve
    // would otherwise start a Kamailio, an rtpengine and a far end wherever they are installed.
    env: childEnv({ SWITCHBOARD_VOICE: 'off', ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let exitedWith: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      exitedWith = { code, signal };
      resolve(exitedWith);
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async (timeoutMs = 10_000) => {
    if (exitedWith) return exitedWith;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  const handle: ServeProcess = {
    child,
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stop,
  };
  const deadline = performance.now() + HEALTHY_WITHIN_MS;
  for (let attempt = 0; attempt < 600 && performance.now() < deadline; attempt++) {
    if (exitedWith) break;
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return handle;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  await stop(2_000);
  throw new Error(
    `switchboard serve did not become healthy on ${url} (exit ${JSON.stringify(exitedWith)}).\nstdout:\n${stdout}\nstderr:\n${stderr}`,
  );
}

/** An account and a test-mode key made with the CLI, as an operator would. */
export interface CliAccount {
  id: string;
  testNumbers: string[];
  key: string;
}

/** Runs `accounts create` and `keys create --mode test`, failing the test if either fails. */
export async function createAccountWithCli(
  env: Record<string, string>,
  name: string,
): Promise<CliAccount> {
  const created = await runCli(['accounts', 'create', '--name', name, '--json'], env);
  assert.equal(created.code, 0, created.stderr);
  const account = jsonOutput(created);
  const keyed = await runCli(
    ['keys', 'create', '--account', account.id, '--mode', 'test', '--json'],
    env,
  );
  assert.equal(keyed.code, 0, keyed.stderr);
  return { id: account.id, testNumbers: account.testNumbers, key: jsonOutput(keyed).secret };
}
