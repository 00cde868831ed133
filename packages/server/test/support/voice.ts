import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import bencode from 'bencode';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUser } from '../../src/commands/create-user.ts';
import { hashPassword } from '../../src/lib/secrets.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { startVoicePresence } from '../../src/http/voice-presence.ts';
import type { Engine } from '../../src/store/engine/capabilities.ts';
import { keeperSecrets } from '../../src/voice/ephemeral-credentials.ts';
import type { VoiceControl } from '../../src/voice/voice-control.ts';
import type { VoiceTlsFiles } from '../../src/voice/kamailio-tls.ts';
import { startVoiceStack, type VoiceStack } from '../../src/voice/voice-stack.ts';
import { startTestApp, type TestAccount, type TestApp } from './app.ts';
import { freePort } from './processes.ts';

/** A test app with the voice stack (Kamailio, rtpengine, the sandbox far end) beside it. */
export interface VoiceTestApp extends TestApp {
  stack: VoiceStack;
  voice: VoiceControl;
}

export async function startVoiceApp(
  engine: Engine,
  options: {
    ringTimeoutMs?: number;
    env?: Record<string, string>;
    credentialSeconds?: number;
    tls?: VoiceTlsFiles;
    /** The service's secret key, which instances sharing a database share (peers' token). */
    secretKey?: Buffer;
  } = {},
): Promise<VoiceTestApp> {
  const secretKey = options.secretKey ?? randomBytes(32);
  const voice: VoiceControl = {
    secrets: keeperSecrets(secretKey, randomBytes(12).toString('hex')),
    endpoint: null,
  };
  if (options.credentialSeconds) voice.credentialSeconds = options.credentialSeconds;
  // Switchboard's checks of TLS trunks trust the CAs its Kamailio is given, as `serve` does.
  const env = {
    ...(options.tls?.ca ? { SWITCHBOARD_VOICE_TLS_CA: options.tls.ca } : {}),
    ...options.env,
  };
  const t = await startTestApp(engine, { voice, env });
  let stack: VoiceStack;
  try {
    stack = await startVoiceStack({
      host: '127.0.0.1',
      controlUrl: t.url,
      secrets: voice.secrets,
      logger: createLogger(process.env.SWITCHBOARD_TEST_VOICE_LOG ?? 'silent'),
      ...(options.ringTimeoutMs ? { ringTimeoutMs: options.ringTimeoutMs } : {}),
      ...(options.tls ? { tls: options.tls } : {}),
    });
  } catch (error) {
    await t.close();
    throw error;
  }
  const sipHost = `127.0.0.1:${stack.sipPort}`;
  voice.endpoint = { wsUrl: stack.wsUrl, sipHost, peerAddress: sipHost };
  voice.ring = stack.ring;
  // Announced as `serve` does (server.ts), so instances sharing a database fork to each other.
  const withdraw = startVoicePresence(voice, t.app.deps.changes, createLogger('silent'));
  return {
    ...t,
    stack,
    voice,
    async close() {
      await withdraw();
      await stack.stop();
      await t.close();
    },
  };
}

/** What `GET /app/api/voice` gives a signed-in softphone. */
export interface SipLogin {
  aor: string;
  username: string;
  password: string;
  wsUrl: string;
  sipUri: string;
  expiresAt: string;
}

let users = 0;

/** Signs a new member of `account` in and fetches the session's SIP credentials. */
export async function signInForVoice(t: TestApp, account: TestAccount): Promise<SipLogin> {
  const email = `voice${++users}-${Date.now()}@example.com`;
  const password = 'correct horse battery staple';
  const passwordHash = await hashPassword(password);
  await t.store.write((tx) =>
    createUser(
      tx,
      { accountId: account.accountId, email, role: 'member', passwordHash },
      { clock: { now: Date.now } },
    ),
  );
  const signIn = await fetch(`${t.url}/app/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (signIn.status !== 200) throw new Error(`sign-in: ${signIn.status} ${await signIn.text()}`);
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  const res = await fetch(`${t.url}/app/api/voice`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`voice: ${res.status} ${await res.text()}`);
  return (await res.json()) as SipLogin;
}

/** How a sipp run went: its exit code (0: every call as the scenario says) and its errors. */
export interface SippRun {
  code: number | null;
  errors: string;
  output: string;
}

const SCENARIOS = join(import.meta.dirname, 'sip');

/**
 * Runs one call of Debian's sipp with scenario `name` (test/support/sip/, or a path) against Kamailio,
 * killed after `timeoutMs`. `keys` fill the scenario's [keyword]s.
 */
export async function runSipp(
  stack: Pick<VoiceStack, 'host' | 'sipPort'>,
  name: string,
  options: {
    keys: Record<string, string>;
    username?: string;
    password?: string;
    pauseMs?: number;
    timeoutMs?: number;
    /** Sends back every RTP packet it gets, so a call carries audio both ways. */
    rtpEcho?: boolean;
  },
): Promise<SippRun> {
  const dir = mkdtempSync(join(tmpdir(), 'sipp-'));
  const errorFile = join(dir, 'errors.log');
  const args = [
    `${stack.host}:${stack.sipPort}`,
    '-sf',
    name.startsWith('/') ? name : join(SCENARIOS, `${name}.xml`),
    '-i',
    stack.host,
    '-p',
    String(await freePort()),
    '-mp',
    String(await freePort()),
    '-m',
    '1',
    '-nostdin',
    ...(options.rtpEcho ? ['-rtp_echo'] : []),
    '-timeout',
    `${Math.ceil((options.timeoutMs ?? 20_000) / 1000)}s`,
    '-timeout_error',
    '-recv_timeout',
    '15000',
    '-trace_err',
    '-error_file',
    errorFile,
    '-d',
    String(options.pauseMs ?? 0),
    ...(options.username ? ['-au', options.username] : []),
    ...(options.password ? ['-ap', options.password] : []),
    ...Object.entries(options.keys).flatMap(([key, value]) => ['-key', key, value]),
  ];
  const child = spawn('/usr/bin/sipp', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output = (output + d).slice(-4000)));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output = (output + d).slice(-4000)));
  const killer = setTimeout(() => child.kill('SIGKILL'), (options.timeoutMs ?? 20_000) + 5000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(killer);
  let errors = '';
  try {
    errors = readFileSync(errorFile, 'utf8');
  } catch {
    // No error file: no error.
  }
  rmSync(dir, { recursive: true, force: true });
  return { code, errors, output };
}

/** Packets and bytes rtpengine relayed for one party of a call (its `from-tag`). */
export interface RtpLeg {
  tag: string;
  packets: number;
  bytes: number;
}

/**
 * What rtpengine itself counted for a call in progress, party by party: its `query` command.
 */
export async function rtpLegs(stack: RtpEngineAt, callId: string): Promise<RtpLeg[]> {
  const reply = await askRtpengine(stack, { command: 'query', 'call-id': callId });
  return Object.entries(reply.tags as Record<string, any>).map(([tag, party]) => {
    let packets = 0;
    let bytes = 0;
    for (const media of party.medias ?? []) {
      for (const stream of media.streams ?? []) {
        packets += Number(stream.stats?.packets ?? 0);
        bytes += Number(stream.stats?.bytes ?? 0);
      }
    }
    return { tag, packets, bytes };
  });
}

/** The Call-IDs of the calls rtpengine relays now (its `list` command). */
export async function rtpCalls(stack: RtpEngineAt): Promise<string[]> {
  const reply = await askRtpengine(stack, { command: 'list' });
  return (reply.calls as Uint8Array[]).map((id) => Buffer.from(id).toString());
}

type RtpEngineAt = Pick<VoiceStack, 'host' | 'rtpenginePort'>;

/** One ng command to rtpengine (bencoded, after a cookie), and its decoded answer. */
async function askRtpengine(stack: RtpEngineAt, command: object): Promise<any> {
  const socket = createSocket('udp4');
  const cookie = randomBytes(6).toString('hex');
  try {
    const answer = new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('rtpengine did not answer in 2 s')), 2000);
      socket.on('message', (message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
    const query = bencode.encode(command);
    socket.send(Buffer.concat([Buffer.from(`${cookie} `), query]), stack.rtpenginePort, stack.host);
    const raw = await answer;
    // Decoded without a text encoding (bencode 4's breaks on Node 24): strings are bytes.
    const reply = bencode.decode(raw.subarray(raw.indexOf(' ') + 1)) as any;
    const result = Buffer.from(reply.result).toString();
    if (result !== 'ok') throw new Error(`rtpengine: ${raw.toString()}`);
    return reply;
  } finally {
    socket.close();
  }
}
