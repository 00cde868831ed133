import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { Logger } from './lib/logger.ts';
import { createSecretBox, loadSecretKey } from './lib/secret-box.ts';
import { openStore, type Store } from './store/store.ts';
import { startBackground } from './workers/background.ts';
import { localChanges } from './commands/changes.ts';
import { webhookDeps } from './delivery/webhook-deps.ts';

/** A running service: its HTTP app, store and background work. */
export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  /** The address it listens on, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Stops taking requests, finishes those in flight, stops workers, closes storage. */
  close(): Promise<void>;
}

/** Opens storage, builds the app and listens, as `switchboard serve` does. */
export async function startServer(
  config: Config,
  logger: Logger,
  clock: Clock = systemClock,
): Promise<RunningServer> {
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    durability: config.durability,
    checkpointThread: true,
  });
  const secrets = createSecretBox(loadSecretKey(config.secretKey, config.dataDir));
  const changes = localChanges(store, webhookDeps({ clock, secrets, config }));
  const app = await buildApp({ config, store, changes, logger, clock, secrets });
  const background: { stop(): Promise<void> }[] = [];
  if (config.roles.includes('worker')) {
    background.push(await startBackground({ config, store, clock, logger, secrets }));
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
    for (const worker of background) await worker.stop();
    await store.close();
  };
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return { app, store, url: `http://${host}:${port}`, close };
}
