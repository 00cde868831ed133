import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createSecretBox, type SecretBox } from '../../src/lib/secret-box.ts';
import { randomBytes } from 'node:crypto';
import { createAccount } from '../../src/commands/create-account.ts';
import { createApiKey } from '../../src/commands/create-api-key.ts';
import type { Engine } from '../../src/store/engine/capabilities.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { startBackground, type Background } from '../../src/workers/background.ts';
import { localChanges } from '../../src/commands/changes.ts';
import { webhookDeps } from '../../src/delivery/webhook-deps.ts';
import { createTestDatabase, type TestDatabase } from './engines.ts';
import { contractOf } from './contract.ts';
import { ApiClient } from './http.ts';
import type { VoiceControl } from '../../src/voice/voice-control.ts';

/** A test's account: its id, keys for both modes and sandbox numbers. */
export interface TestAccount {
  accountId: string;
  testKey: string;
  testKeyId: string;
  liveKey: string;
  liveKeyId: string;
  testNumbers: string[];
  /** A client acting with the test key. */
  test: ApiClient;
  /** A client acting with the live key. */
  live: ApiClient;
}

/** A real app listening on 127.0.0.1 over a fresh database. */
export interface TestApp {
  engine: Engine;
  url: string;
  app: FastifyInstance;
  store: Store;
  config: Config;
  secrets: SecretBox;
  database: TestDatabase;
  /** A new account with a test and a live key. */
  newAccount(name?: string): Promise<TestAccount>;
  /** A client with any Authorization value (or none). */
  client(key?: string | null): ApiClient;
  close(): Promise<void>;
}

/** Starts the app on a random port over a fresh database of `engine`. */
export async function startTestApp(
  engine: Engine,
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    background?: boolean;
    /** Trusted CA for webhook HTTPS receivers with self-signed certificates. */
    webhookCa?: string;
    /** Trusted CA for a test's own Web Push service. */
    pushCa?: string;
    webhookTimeoutMs?: number;
    realtimeHeartbeatMs?: number;
    /** Voice's control plane (test/support/voice.ts starts the stack it points at). */
    voice?: VoiceControl;
    /** A port chosen beforehand, when a peer must be told the app's address before it starts. */
    port?: number;
  } = {},
): Promise<TestApp> {
  const database = await createTestDatabase(engine);
  const config = loadConfig({
    SWITCHBOARD_LOG_LEVEL: 'silent',
    SWITCHBOARD_RATE_LIMIT: '10000',
    // Suites send many keyless requests from one address; one suite tests the limit itself.
    SWITCHBOARD_UNAUTHENTICATED_RATE_LIMIT: '100000',
    SWITCHBOARD_SANDBOX_DELAY_MS: '20',
    ...database.env,
    ...options.env,
    PORT: '0',
  });
  const store = await openStore(database.options);
  const clock = options.clock ?? { now: () => Date.now() };
  const secrets = createSecretBox(randomBytes(32));
  const changes = localChanges(store, webhookDeps({ clock, secrets, config }));
  const app = await buildApp({
    config,
    store,
    changes,
    clock,
    secrets,
    logger: createLogger('silent'),
    ...(options.realtimeHeartbeatMs ? { realtimeHeartbeatMs: options.realtimeHeartbeatMs } : {}),
    ...(options.pushCa ? { pushCa: options.pushCa } : {}),
    ...(options.voice ? { voice: options.voice } : {}),
  });
  await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  // The carrier side (dispatcher, sandbox carrier) runs unless a test drives it itself.
  const background: Background | null =
    options.background === false
      ? null
      : await startBackground({
          config,
          store,
          clock,
          secrets,
          logger: createLogger('silent'),
          ...(options.webhookCa ? { webhookCa: options.webhookCa } : {}),
          ...(options.webhookTimeoutMs ? { webhookTimeoutMs: options.webhookTimeoutMs } : {}),
        });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // The clients check every response against the app's API description: loaded here,
  // in the suite's set-up, rather than in the middle of its first test.
  await contractOf(url);
  const deps = { clock };
  return {
    engine,
    url,
    app,
    store,
    config,
    secrets,
    database,
    client: (key) => new ApiClient(url, key ?? null),
    async newAccount(name = 'Test account') {
      return store.write(async (tx) => {
        const account = await createAccount(tx, { name }, deps);
        const test = await createApiKey(tx, { accountId: account.id, mode: 'test' }, deps);
        const live = await createApiKey(tx, { accountId: account.id, mode: 'live' }, deps);
        return {
          accountId: account.id,
          testKey: test.secret,
          testKeyId: test.id,
          liveKey: live.secret,
          liveKeyId: live.id,
          testNumbers: account.testNumbers,
          test: new ApiClient(url, test.secret),
          live: new ApiClient(url, live.secret),
        };
      });
    },
    async close() {
      await app.close();
      await background?.stop();
      await store.close();
      await database.drop();
    },
  };
}
