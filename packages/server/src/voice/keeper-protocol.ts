// What `serve` and its voice keeper (keeper-main.ts) say to each other: JSON lines over a unix
// socket of the data directory, and the state file that names the keeper.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import type { VoiceSecrets } from './ephemeral-credentials.ts';
import type { VoiceTlsFiles } from './kamailio-tls.ts';
import type { SandboxRing } from './sandbox-caller.ts';

/** What `serve` hands a keeper it starts, on its stdin (never logged). */
export interface KeeperInput {
  id: string;
  host: string;
  controlUrl: string;
  secrets: VoiceSecrets;
  dataDir: string;
  logLevel: string;
  tls: VoiceTlsFiles;
}

/** Where softphones and SIP peers reach the stack a keeper runs. */
export interface KeeperEndpoint {
  sipPort: number;
  tlsPort: number;
  wsUrl: string;
  farEnd: string;
  rtpenginePort: number;
}

/** What a keeper says of itself: in its state file, and in answer to `attach`. */
export interface KeeperState {
  id: string;
  pid: number;
  host: string;
  controlUrl: string;
  /** The TLS files its Kamailio was started with: another set is not adopted. */
  tls: VoiceTlsFiles;
  /** voiceRunId of its secrets: a `serve` checks it derived the same ones. */
  runId: string;
  endpoint: KeeperEndpoint;
}

export type KeeperRequest =
  | { n: number; op: 'attach' }
  | { n: number; op: 'ring'; call: SandboxRing }
  | { n: number; op: 'leave' }
  | { n: number; op: 'stop' };

export interface KeeperReply {
  n: number;
  state?: KeeperState;
  /** Another `serve` holds the keeper. */
  busy?: boolean;
  /** Answer to `leave`: the calls it stays for (0: it stops now). */
  staying?: number;
  /** Answer to `attach`: when each call was last seen running while no serve was attached. */
  seen?: Record<string, number>;
  error?: string;
}

/**
 * The keeper's files. Its socket goes to the temporary directory, named for the data
 * directory, only where the data directory's path is too long for a unix socket's (108 bytes).
 */
export function keeperFiles(dataDir: string) {
  const inData = join(dataDir, 'voice-keeper.sock');
  const name = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  return {
    socket:
      Buffer.byteLength(inData) < 100 ? inData : join(tmpdir(), `switchboard-voice-${name}.sock`),
    state: join(dataDir, 'voice-keeper.json'),
    log: join(dataDir, 'voice-keeper.log'),
  };
}

/** The state file of the keeper of `dataDir`, or null when there is none (or it is unreadable). */
export function readKeeperState(dataDir: string): KeeperState | null {
  try {
    const state = JSON.parse(readFileSync(keeperFiles(dataDir).state, 'utf8')) as KeeperState;
    return typeof state.id === 'string' && typeof state.controlUrl === 'string' ? state : null;
  } catch {
    return null;
  }
}

/** Calls `onMessage` with each JSON line `socket` receives; a line that is not JSON ends it. */
export function readLines(socket: Socket, onMessage: (message: unknown) => void): void {
  let buffered = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      try {
        onMessage(JSON.parse(line));
      } catch {
        socket.destroy();
        return;
      }
    }
    if (buffered.length > 65_536) socket.destroy();
  });
}

export function sendLine(socket: Socket, message: object): void {
  if (!socket.destroyed) socket.write(JSON.stringify(message) + '\n');
}
