// SMSCs for the ESME's integration tests, behind one interface: the Net::SMPP script
// (smsc.pl, a child process) and npm's `smpp` server (npm-smsc.ts, in this process). Both
// log what they receive and send as the same events, and take the same commands.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

import { NET_SMPP } from '../../../../scripts/test-peers.ts';
const SCRIPT = join(import.meta.dirname, 'smsc.pl');

/** One line of an SMSC's log: `event` is listening, connected, pdu (received), sent, disconnected. */
export interface SmscEvent {
  event: string;
  command?: string;
  seq?: number;
  t: number;
  [field: string]: unknown;
}

export interface SmscOptions {
  port?: number;
  systemId?: string;
  password?: string;
  /** The base of message ids in submit_sm_resp (and in receipted_message_id). */
  respIds?: 'dec' | 'hex';
  /** The base of the id in the receipt text. */
  receiptIds?: 'dec' | 'hex';
  receipt?: 'text' | 'tlv' | 'both' | 'none';
  stat?: string;
}

/**
 * A command to the SMSC: throttle {count, status}, silent {count}, hold, release, mo
 * {source, dest, hex, esm_class, data_coding, payload_hex, sar, tag}, enquire_link,
 * unknown {command_id}, garbage, raw {hex, seq}, unbind, close.
 */
export type SmscCommand = { cmd: string } & Record<string, unknown>;

export interface SmscPeer {
  readonly name: string;
  readonly port: number;
  readonly events: SmscEvent[];
  /** Sends a command; resolves once the SMSC has carried it out. */
  command(command: SmscCommand): Promise<void>;
  /** The first event (from `from` on) that `accept` takes, waiting up to `timeoutMs`. */
  waitFor(
    what: string,
    accept: (e: SmscEvent) => boolean,
    timeoutMs?: number,
    from?: number,
  ): Promise<SmscEvent>;
  /** Received PDUs of one command. */
  received(command: string): SmscEvent[];
  /** Kills the SMSC at once (no unbind), as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same port, with the same options. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The event log both peers keep, with a bounded wait. */
export class EventLog {
  readonly events: SmscEvent[] = [];

  push(event: Omit<SmscEvent, 't'> & { t?: number }): void {
    this.events.push({ t: Date.now(), ...event } as SmscEvent);
  }

  received(command: string): SmscEvent[] {
    return this.events.filter((e) => e.event === 'pdu' && e.command === command);
  }

  async waitFor(
    what: string,
    accept: (e: SmscEvent) => boolean,
    timeoutMs = 5_000,
    from = 0,
  ): Promise<SmscEvent> {
    const deadline = Date.now() + timeoutMs;
    for (let i = 0; i < Math.ceil(timeoutMs / 10) + 1; i++) {
      const found = this.events.slice(from).find(accept);
      if (found) return found;
      if (Date.now() >= deadline) break;
      await sleep(10);
    }
    throw new Error(
      `timed out after ${timeoutMs} ms waiting for ${what}; log:\n` +
        this.events.map((e) => JSON.stringify(e)).join('\n'),
    );
  }
}

function perlArgs(options: SmscOptions, port: number): string[] {
  return [
    SCRIPT,
    '--port',
    String(port),
    '--system-id',
    options.systemId ?? 'test',
    '--password',
    options.password ?? 'secret',
    '--resp-ids',
    options.respIds ?? 'dec',
    '--receipt-ids',
    options.receiptIds ?? 'dec',
    '--receipt',
    options.receipt ?? 'text',
    '--stat',
    options.stat ?? 'DELIVRD',
  ];
}

/** Starts smsc.pl on `options.port` (0: any free port) and waits for it to listen. */
export async function startPerlSmsc(options: SmscOptions = {}): Promise<SmscPeer> {
  if (!existsSync(NET_SMPP.path)) {
    throw new Error(
      `Net::SMPP is missing (${NET_SMPP.path}): apt-get install -y ${NET_SMPP.packages.join(' ')}` +
        ` (npm test installs it), or point ${NET_SMPP.override} at a copy`,
    );
  }
  // The directory that holds Net/SMPP.pm, for a copy outside Perl's own paths.
  const include = dirname(dirname(NET_SMPP.path));
  const log = new EventLog();
  let child: ChildProcess;
  let exited: Promise<void>;
  let port = options.port ?? 0;
  let commands = 0;

  const launch = async () => {
    const from = log.events.length;
    child = spawn('perl', [`-I${include}`, ...perlArgs(options, port)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    exited = new Promise((resolve) => child.once('exit', () => resolve()));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        log.events.push(JSON.parse(line) as SmscEvent);
      } catch {
        log.push({ event: 'stdout', line });
      }
    });
    createInterface({ input: child.stderr! }).on('line', (line) =>
      log.push({ event: 'stderr', line }),
    );
    child.stdin!.on('error', () => {}); // a command written as it dies
    const listening = await log.waitFor(
      'smsc.pl to listen',
      (e) => e.event === 'listening',
      10_000,
      from,
    );
    port = listening.port as number;
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  await launch();

  return {
    name: 'Net::SMPP',
    get port() {
      return port;
    },
    events: log.events,
    command: async (command) => {
      const id = ++commands;
      const from = log.events.length;
      child.stdin!.write(`${JSON.stringify({ ...command, id })}\n`);
      await log.waitFor(
        `${command.cmd} done`,
        (e) => e.event === 'done' && e.id === id,
        5_000,
        from,
      );
    },
    waitFor: (what, accept, timeoutMs, from) => log.waitFor(what, accept, timeoutMs, from),
    received: (command) => log.received(command),
    kill,
    restart: async () => {
      await kill();
      await launch();
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin!.write('{"cmd":"quit"}\n');
        const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
