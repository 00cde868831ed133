import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../lib/logger.ts';
import type { VoiceSecrets } from './ephemeral-credentials.ts';
import { DEBIAN_KAMAILIO_MODULES, kamailioConfig } from './kamailio-config.ts';
import { NO_VOICE_TLS_FILES, writeKamailioTls, type VoiceTlsFiles } from './kamailio-tls.ts';
import { freeMediaPorts, freeVoicePort, udpFree } from './ports.ts';
import { supervise, type Supervised } from './supervisor.ts';
import { sandboxCaller, type SandboxRing } from './sandbox-caller.ts';

/** The programs of the voice stack and the Debian packages that install them. */
export const VOICE_PROGRAMS = {
  kamailio: {
    path: '/usr/sbin/kamailio',
    packages: [
      'kamailio',
      'kamailio-websocket-modules',
      'kamailio-autheph-modules',
      'kamailio-utils-modules',
      'kamailio-tls-modules',
    ],
  },
  openssl: { path: '/usr/bin/openssl', packages: ['openssl'] },
  rtpengine: { path: '/usr/bin/rtpengine', packages: ['rtpengine-daemon'] },
  sipp: { path: '/usr/bin/sipp', packages: ['sip-tester'] },
} as const;

/** Kamailio modules the generated configuration loads from packages beyond `kamailio`. */
const MODULES = ['websocket.so', 'auth_ephemeral.so', 'http_client.so', 'rtpengine.so', 'tls.so'];

/** What is missing for voice, as the packages to install; empty when all is there. */
export function missingVoicePackages(modules = DEBIAN_KAMAILIO_MODULES): string[] {
  const missing = Object.values(VOICE_PROGRAMS)
    .filter((program) => !existsSync(program.path))
    .flatMap((program) => program.packages);
  if (MODULES.some((module) => !existsSync(join(modules, module)))) {
    missing.push(...VOICE_PROGRAMS.kamailio.packages);
  }
  return [...new Set(missing)];
}

/** A running voice stack: where softphones and SIP peers reach it, and how to stop it. */
export interface VoiceStack {
  host: string;
  /** Kamailio's SIP port (UDP and TCP). */
  sipPort: number;
  /** Kamailio's SIP over TLS port. */
  tlsPort: number;
  /** `ws://host:port`: where JsSIP connects. */
  wsUrl: string;
  /** `host:port` of the sandbox far end. */
  farEnd: string;
  /** rtpengine's control port (its ng protocol over UDP). */
  rtpenginePort: number;
  programs: Supervised[];
  /** Rings an account's softphones from the sandbox (voice/sandbox-caller.ts). */
  ring(call: SandboxRing): Promise<void>;
  stop(): Promise<void>;
}

export interface VoiceStackOptions {
  /** Address every program binds; 127.0.0.1 in tests. */
  host: string;
  /** Switchboard's base URL, where Kamailio reports calls. */
  controlUrl: string;
  secrets: VoiceSecrets;
  logger: Logger;
  /** How long an unanswered call rings. */
  ringTimeoutMs?: number;
  /** How long each program gets to come up. */
  startTimeoutMs?: number;
  /** Kamailio's certificate and the CAs trunks' are checked against (voice/kamailio-tls.ts). */
  tls?: VoiceTlsFiles;
}

const SCENARIO = new URL('./sandbox-far-end.xml', import.meta.url);

/**
 * Starts rtpengine (user space: no kernel table), the sandbox far end (sipp answering and
 * echoing) and Kamailio over a configuration written from `options`, each on free ports and
 * supervised, and waits until each takes traffic. Any that does not come up stops them all.
 */
export async function startVoiceStack(options: VoiceStackOptions): Promise<VoiceStack> {
  const { host, logger } = options;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-voice-'));
  const [rtpenginePort, sipPort, wsPort, farEndPort, echoPort] = await fivePorts(host);
  const [mediaLow, mediaHigh] = await freeMediaPorts(host, 200);
  let tlsPort = await freeVoicePort(host);
  const taken = [rtpenginePort, sipPort, wsPort, farEndPort, echoPort];
  for (let tries = 0; taken.includes(tlsPort) && tries < 10; tries++) {
    tlsPort = await freeVoicePort(host);
  }
  const programs: Supervised[] = [];
  const callers = sandboxCaller({
    host,
    sipPort,
    controlToken: options.secrets.controlToken,
    sipp: VOICE_PROGRAMS.sipp.path,
    logger,
  });
  const stop = async () => {
    callers.stopAll();
    await Promise.all(programs.map((program) => program.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = options.startTimeoutMs ?? 10_000;
  try {
    const rtpengine = supervise(
      'rtpengine',
      VOICE_PROGRAMS.rtpengine.path,
      [
        '--config-file=none',
        '--foreground',
        '--log-stderr',
        '--table=-1',
        `--interface=${host}`,
        `--listen-ng=${host}:${rtpenginePort}`,
        `--port-min=${mediaLow}`,
        `--port-max=${mediaHigh}`,
        `--pidfile=${join(dir, 'rtpengine.pid')}`,
      ],
      logger,
    );
    programs.push(rtpengine);
    await until(rtpengine, () => bound(host, rtpenginePort), deadline);
    const farEnd = supervise(
      'sandbox far end',
      VOICE_PROGRAMS.sipp.path,
      [
        '-sf',
        SCENARIO.pathname,
        '-i',
        host,
        '-p',
        String(farEndPort),
        '-mi',
        host,
        '-mp',
        String(echoPort),
        '-rtp_echo',
        '-nostdin',
        '-aa',
        '-trace_err',
        '-error_file',
        join(dir, 'far-end-errors.log'),
      ],
      logger,
    );
    programs.push(farEnd);
    await until(farEnd, () => bound(host, farEndPort), deadline);
    const config = join(dir, 'kamailio.cfg');
    writeFileSync(
      config,
      kamailioConfig({
        host,
        sipPort,
        wsPort,
        tlsPort,
        tlsConfig: writeKamailioTls(dir, host, options.tls ?? NO_VOICE_TLS_FILES),
        rtpenginePort,
        farEnd: `${host}:${farEndPort}`,
        controlUrl: options.controlUrl,
        credentialSecret: options.secrets.credentialSecret,
        controlToken: options.secrets.controlToken,
        peerToken: options.secrets.peerToken,
        ringTimeoutMs: options.ringTimeoutMs ?? 30_000,
        modules: DEBIAN_KAMAILIO_MODULES,
      }),
      { mode: 0o600 },
    );
    const kamailio = supervise(
      'kamailio',
      VOICE_PROGRAMS.kamailio.path,
      ['-DD', '-E', '-f', config, '-Y', dir, '-P', join(dir, 'kamailio.pid')],
      logger,
    );
    programs.push(kamailio);
    await until(kamailio, () => accepts(host, wsPort), deadline);
    return {
      host,
      sipPort,
      tlsPort,
      wsUrl: `ws://${host}:${wsPort}`,
      farEnd: `${host}:${farEndPort}`,
      rtpenginePort,
      programs,
      ring: (call) => callers.ring(call),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Five distinct free ports: rtpengine's control, SIP, WebSocket, the far end's SIP and media. */
async function fivePorts(host: string): Promise<[number, number, number, number, number]> {
  const ports = new Set<number>();
  for (let tries = 0; ports.size < 5 && tries < 100; tries++) ports.add(await freeVoicePort(host));
  const [a, b, c, d, e] = [...ports];
  if (e === undefined) throw new Error('No five free ports for the voice stack.');
  return [a!, b!, c!, d!, e];
}

const bound = async (host: string, port: number) => !(await udpFree(host, port));

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits, polling every 50 ms up to `timeoutMs`, until `ready`; fails with the program's output. */
async function until(
  program: Supervised,
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await ready()) return;
    await sleep(50);
  }
  throw new Error(`${program.name} did not start within ${timeoutMs} ms:\n${program.lastLines()}`);
}
