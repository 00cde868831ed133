import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import type { VoiceTlsFiles } from './voice/kamailio-tls.ts';

/** Which parts of the service one process runs. One process runs all by default. */
export const ROLES = ['api', 'worker', 'realtime'] as const;
export type Role = (typeof ROLES)[number];

/** The whole configuration, parsed once from the environment (and CLI flags). */
export interface Config {
  /** HTTP port; `{base_url}` is `http://HOST:PORT/v1`. */
  port: number;
  /** Bind address. */
  host: string;
  /** Directory holding the embedded SQLite database. */
  dataDir: string;
  /** `postgres://…` switches storage to PostgreSQL; null means embedded SQLite. */
  databaseUrl: string | null;
  /** Lets webhook endpoints use `http://` and private addresses. */
  webhookAllowPrivate: boolean;
  /** Sandbox carrier: time from queued to sent, and again to delivered. */
  sandboxDelayMs: number;
  /** Requests per second per API key (burst = 2 x rate). */
  rateLimit: number;
  /** Requests per second per client address without a valid key or session (burst = 2 x rate); 0: no limit. */
  unauthenticatedRateLimit: number;
  /** Time a client has to send a request's headers. */
  headersTimeoutMs: number;
  /** Time a client has to send a whole request, headers and body. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open. */
  keepAliveTimeoutMs: number;
  /** Connections one client address may hold open at once; 0: no cap. */
  maxConnectionsPerAddress: number;
  /** `full` fsyncs every commit; `normal` trades that for speed (SQLite only). */
  durability: 'full' | 'normal';
  /** pino level. */
  logLevel: string;
  /** Roles this process runs. */
  roles: Role[];
  /** URL scheme of deep links (`switchboard://sms?to=…`). */
  deepLinkScheme: string;
  /** Key that encrypts webhook secrets at rest; null means a key file in `dataDir`. */
  secretKey: string | null;
  /** Days webhook events and their attempts are kept (workers/retention-sweep.ts). */
  retentionDays: number;
  /** Hours a live send waits for its carrier connection to bind before it fails (domain/submission-retry.ts). */
  liveQueueHours: number;
  /** How long a SIGTERM may take: live channels close at once, then connections are cut, then exit. */
  shutdownTimeoutMs: number;
  /** `SWITCHBOARD_VOICE`: run Kamailio and rtpengine (`auto`: when installed). */
  voice: 'auto' | 'on' | 'off';
  /** The address providers reach this service at (their callbacks); null: not reachable. */
  publicUrl: string | null;
  /** Seconds between the OPTIONS checks of each SIP trunk (carriers/sip/trunk-checks.ts). */
  trunkCheckSeconds: number;
  /** `SWITCHBOARD_VOICE_TLS_*`: Kamailio's certificate, and CAs trusted for TLS trunks. */
  voiceTls: VoiceTlsFiles;
}

/** A configuration that cannot be used, with every problem listed at once. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Flags that override the environment (`--port`, `--data`). */
export interface ConfigOverrides {
  port?: string | undefined;
  dataDir?: string | undefined;
}

function integer(
  problems: string[],
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    problems.push(`${name} must be an integer from ${min} to ${max} (got '${raw}')`);
    return fallback;
  }
  return n;
}

/**
 * The bounds every connection is held to (README, Configuration). Headers take a
 * person's browser milliseconds, so 10 s only ever cuts a stalled or hostile client;
 * a whole request of at most 256 KiB gets 30 s, enough on a slow mobile uplink. An
 * idle keep-alive connection stays 72 s, longer than the 60 s after which common
 * reverse proxies (nginx, cloud load balancers) drop theirs: a proxy then never
 * reuses a connection this server is closing (a 502 for its client).
 */
function connectionBounds(
  problems: string[],
  env: NodeJS.ProcessEnv,
): Pick<
  Config,
  'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnectionsPerAddress'
> {
  const ms = (name: string, fallback: number) =>
    integer(problems, name, env[name], fallback, 1, 3_600_000);
  const headersTimeoutMs = ms('SWITCHBOARD_HEADERS_TIMEOUT_MS', 10_000);
  const requestTimeoutMs = ms('SWITCHBOARD_REQUEST_TIMEOUT_MS', 30_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    problems.push(
      'SWITCHBOARD_HEADERS_TIMEOUT_MS must not exceed SWITCHBOARD_REQUEST_TIMEOUT_MS (the headers are part of the request)',
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: ms('SWITCHBOARD_KEEP_ALIVE_TIMEOUT_MS', 72_000),
    maxConnectionsPerAddress: integer(
      problems,
      'SWITCHBOARD_MAX_CONNECTIONS_PER_ADDRESS',
      env.SWITCHBOARD_MAX_CONNECTIONS_PER_ADDRESS,
      256,
      0,
      1_000_000,
    ),
  };
}

/** Reads the configuration; throws ConfigError listing everything that is wrong. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigOverrides = {},
): Config {
  const problems: string[] = [];
  const port = integer(problems, 'PORT', overrides.port ?? env.PORT, 8080, 0, 65535);
  const sandboxDelayMs = integer(
    problems,
    'SWITCHBOARD_SANDBOX_DELAY_MS',
    env.SWITCHBOARD_SANDBOX_DELAY_MS,
    200,
    0,
    3_600_000,
  );
  const rateLimit = integer(
    problems,
    'SWITCHBOARD_RATE_LIMIT',
    env.SWITCHBOARD_RATE_LIMIT,
    100,
    1,
    1_000_000,
  );
  const retentionDays = integer(
    problems,
    'SWITCHBOARD_RETENTION_DAYS',
    env.SWITCHBOARD_RETENTION_DAYS,
    30,
    1,
    36_500,
  );
  const liveQueueHours = integer(
    problems,
    'SWITCHBOARD_LIVE_QUEUE_HOURS',
    env.SWITCHBOARD_LIVE_QUEUE_HOURS,
    24,
    1,
    720,
  );
  const trunkCheckSeconds = integer(
    problems,
    'SWITCHBOARD_TRUNK_CHECK_SECONDS',
    env.SWITCHBOARD_TRUNK_CHECK_SECONDS,
    30,
    1,
    3600,
  );
  const unauthenticatedRateLimit = integer(
    problems,
    'SWITCHBOARD_UNAUTHENTICATED_RATE_LIMIT',
    env.SWITCHBOARD_UNAUTHENTICATED_RATE_LIMIT,
    20,
    0,
    1_000_000,
  );
  const connection = connectionBounds(problems, env);
  const shutdownTimeoutMs = integer(
    problems,
    'SWITCHBOARD_SHUTDOWN_TIMEOUT_MS',
    env.SWITCHBOARD_SHUTDOWN_TIMEOUT_MS,
    10_000,
    1_000,
    600_000,
  );
  const databaseUrl = env.DATABASE_URL ? env.DATABASE_URL : null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const durability = env.SWITCHBOARD_DURABILITY ?? 'full';
  if (durability !== 'full' && durability !== 'normal') {
    problems.push(`SWITCHBOARD_DURABILITY must be 'full' or 'normal' (got '${durability}')`);
  }
  const roles = (env.SWITCHBOARD_ROLES ?? ROLES.join(','))
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const role of roles) {
    if (!(ROLES as readonly string[]).includes(role)) {
      problems.push(`SWITCHBOARD_ROLES: unknown role '${role}' (known: ${ROLES.join(', ')})`);
    }
  }
  const allowPrivate = env.SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE ?? '';
  if (!['', '0', '1'].includes(allowPrivate)) {
    problems.push('SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE must be 1 or unset');
  }
  const scheme = env.SWITCHBOARD_DEEP_LINK_SCHEME ?? 'switchboard';
  if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) {
    problems.push('SWITCHBOARD_DEEP_LINK_SCHEME must be a URL scheme such as switchboard');
  }
  const voice = env.SWITCHBOARD_VOICE || 'auto';
  if (voice !== 'auto' && voice !== 'on' && voice !== 'off') {
    problems.push(`SWITCHBOARD_VOICE must be auto, on or off (got '${voice}')`);
  }
  const publicUrl = publicUrlOf(problems, env.SWITCHBOARD_PUBLIC_URL);
  const voiceTls = voiceTlsOf(problems, env);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port,
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(overrides.dataDir ?? env.SWITCHBOARD_DATA_DIR ?? './data'),
    databaseUrl,
    webhookAllowPrivate: allowPrivate === '1',
    sandboxDelayMs,
    rateLimit,
    unauthenticatedRateLimit,
    ...connection,
    durability: durability as Config['durability'],
    logLevel: env.SWITCHBOARD_LOG_LEVEL ?? env.LOG_LEVEL ?? 'info',
    roles: roles as Role[],
    deepLinkScheme: scheme,
    secretKey: env.SWITCHBOARD_SECRET_KEY || null,
    retentionDays,
    liveQueueHours,
    shutdownTimeoutMs,
    voice: voice as Config['voice'],
    publicUrl,
    trunkCheckSeconds,
    voiceTls,
  };
}

/** The voice TLS files: each readable, and a certificate only with its key. */
function voiceTlsOf(problems: string[], env: NodeJS.ProcessEnv): VoiceTlsFiles {
  const file = (name: string) => {
    const path = env[name];
    if (!path) return null;
    try {
      accessSync(path, constants.R_OK);
      return resolve(path);
    } catch {
      problems.push(`${name} must name a readable PEM file (got '${path}')`);
      return null;
    }
  };
  const files = {
    cert: file('SWITCHBOARD_VOICE_TLS_CERT'),
    key: file('SWITCHBOARD_VOICE_TLS_KEY'),
    ca: file('SWITCHBOARD_VOICE_TLS_CA'),
  };
  if (!env.SWITCHBOARD_VOICE_TLS_CERT !== !env.SWITCHBOARD_VOICE_TLS_KEY) {
    problems.push('SWITCHBOARD_VOICE_TLS_CERT and SWITCHBOARD_VOICE_TLS_KEY go together');
  }
  return files;
}

/** `SWITCHBOARD_PUBLIC_URL`: an http(s) origin and optional path, without a trailing slash. */
function publicUrlOf(problems: string[], raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  try {
    const url = new URL(raw);
    if ((url.protocol === 'https:' || url.protocol === 'http:') && !url.search && !url.hash) {
      return url.href.replace(/\/+$/, '');
    }
  } catch {
    // Reported below.
  }
  problems.push(`SWITCHBOARD_PUBLIC_URL must be an http(s) URL such as https://sms.example.com`);
  return null;
}
