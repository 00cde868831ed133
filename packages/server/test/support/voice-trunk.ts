// A SIP trunk's far end for tests: Debian's sipp waiting on a port of 127.0.0.1 for calls
// Kamailio sends (answer.xml, answer-with-digest.xml), and what it logged of them.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { udpFree } from '../../src/voice/ports.ts';
import { freePort } from './processes.ts';
import type { SippRun } from './voice.ts';

export interface SippServer {
  port: number;
  /** Ends once the calls the scenario takes are over, or after `timeoutMs`. */
  done: Promise<SippRun & { log: string }>;
  /** Ends it now. */
  stop(): Promise<void>;
}

const SCENARIOS = join(import.meta.dirname, 'sip');

/** Starts sipp with scenario `name` as a server on a free port, for one call unless said. */
export async function startSippServer(
  name: string,
  options: {
    timeoutMs?: number;
    keys?: Record<string, string>;
    transport?: 'udp' | 'tcp';
    /** How many calls (or requests) it takes before it ends; 1 unless said. */
    calls?: number;
    /** Sends back every RTP packet it gets, so a call carries audio both ways. */
    rtpEcho?: boolean;
    /** Its port, when another peer is set to send there; a free one unless said. */
    port?: number;
  } = {},
): Promise<SippServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sipp-uas-'));
  const port = options.port ?? (await freePort());
  const timeoutMs = options.timeoutMs ?? 20_000;
  const args = [
    '-sf',
    join(SCENARIOS, `${name}.xml`),
    '-i',
    '127.0.0.1',
    '-p',
    String(port),
    '-mp',
    String(await freePort()),
    '-m',
    String(options.calls ?? 1),
    '-t',
    options.transport === 'tcp' ? 't1' : 'u1',
    '-nostdin',
    ...(options.rtpEcho ? ['-rtp_echo'] : []),
    '-timeout',
    `${Math.ceil(timeoutMs / 1000)}s`,
    '-timeout_error',
    '-trace_err',
    '-error_file',
    join(dir, 'errors.log'),
    '-trace_logs',
    '-log_file',
    join(dir, 'calls.log'),
    ...Object.entries(options.keys ?? {}).flatMap(([key, value]) => ['-key', key, value]),
  ];
  const child = spawn('/usr/bin/sipp', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (d: string) => (output = (output + d).slice(-4000));
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs + 5000);
  const read = (file: string) => {
    try {
      return readFileSync(join(dir, file), 'utf8');
    } catch {
      return '';
    }
  };
  let exited = false;
  const done = new Promise<number | null>((resolve) => child.on('exit', resolve)).then((code) => {
    exited = true;
    clearTimeout(killer);
    const run = { code, errors: read('errors.log'), output, log: read('calls.log') };
    rmSync(dir, { recursive: true, force: true });
    return run;
  });
  await listening(port, options.transport ?? 'udp', () => exited);
  const stop = async () => {
    child.kill('SIGTERM');
    await done;
  };
  return { port, done, stop };
}

/** Waits, every 50 ms for at most 5 s, until sipp holds its port (or has exited). */
async function listening(port: number, transport: 'udp' | 'tcp', exited: () => boolean) {
  for (let i = 0; i < 100 && !exited(); i++) {
    if (transport === 'udp' ? !(await udpFree('127.0.0.1', port)) : await accepts(port)) return;
    await sleep(50);
  }
  if (!exited()) throw new Error(`sipp did not listen on ${port} within 5 s`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
