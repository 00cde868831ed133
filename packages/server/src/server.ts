import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { Logger } from './lib/logger.ts';
import { createSecretBox, loadSecretKey } from './lib/secret-box.ts';
import { warnOfUpkeep } from './store/engine/postgres-upkeep.ts';
import { openReadStore, type ReadStore } from './store/store.ts';
import { startStoreThread } from './threads/store-thread-client.ts';
import { prepareVoice } from './voice/start-voice.ts';
import { startCallSweep } from './http/voice-call-sweep.ts';
import { startVoicePresence } from './http/voice-presence.ts';

/** A running service: its HTTP app, its reads, and the store thread behind them. */
export interface RunningServer {
  app: FastifyInstance;
  store: ReadStore;
  /** The address it listens on, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Voice's state in one line: on and where, or off and why (the start banner's). */
  voice: string;
  /** Stops taking requests, finishes those in flight, stops workers, closes storage. */
  close(): Promise<void>;
}

/**
 * Starts the service as `switchboard serve` does: the store thread (the writer,
 * every command), then the HTTP app on this thread with a read-only connection of
 * its own, listening, and only then the background workers of the `worker` role.
 * `onFatal` hears of a store thread that died: the service cannot change anything
 * after that.
 */
export async function startServer(
  config: Config,
  logger: Logger,
  options: { clock?: Clock; onFatal?: (error: Error) => void } = {},
): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const secretKey = loadSecretKey(config.secretKey, config.dataDir);
  const thread = await startStoreThread({
    config,
    secretKey,
    logger,
    onFatal: options.onFatal ?? ((error) => logger.fatal({ err: error }, 'store thread died')),
  });
  const store = await openReadStore(
    { dataDir: config.dataDir, databaseUrl: config.databaseUrl, durability: config.durability },
    thread.signals,
  );
  const secrets = createSecretBox(secretKey);
  const voice = prepareVoice(config.voice, config.host, logger, {
    dataDir: config.dataDir,
    secretKey,
    logLevel: config.logLevel,
    tls: config.voiceTls,
  });
  let app: FastifyInstance | null = null;
  let closed = false;
  let stopSweep = () => {};
  let withdraw = async () => {};
  const close = async () => {
    if (closed) return;
    closed = true;
    stopSweep();
    await withdraw();
    await voice.stop();
    // Requests in flight are answered first; their commands finish on the store thread. A
    // client that holds its connection past most of the bound is cut off, so the store
    // thread still gets time to finish what was accepted (docs/behaviour.md#shutdown).
    const cut = setTimeout(() => {
      logger.warn('shutdown: connections still open; closing them');
      app?.server.closeAllConnections();
    }, config.shutdownTimeoutMs * 0.7);
    try {
      await app?.close();
    } finally {
      clearTimeout(cut);
    }
    await thread.stop();
    await store.close();
  };
  try {
    if (store.capabilities.serverUpkeep) await warnOfUpkeep(store.db, logger);
    app = await buildApp({
      config,
      store,
      changes: thread.changes,
      logger,
      clock,
      secrets,
      ...(voice.control ? { voice: voice.control } : {}),
    });
    await app.listen({ port: config.port, host: config.host });
    // Only a service that listens sends anything: one whose port is taken exits first.
    thread.startWorkers();
    await voice.run(`http://${urlHost(config.host)}:${portOf(app)}`);
    if (voice.control) {
      stopSweep = startCallSweep(voice.control, thread.changes, logger);
      withdraw = startVoicePresence(voice.control, thread.changes, logger);
    }
  } catch (error) {
    await close();
    throw error;
  }
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${portOf(app)}`;
  return { app, store, url, voice: voice.summary(), close };
}

function portOf(app: FastifyInstance): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** Where a local process reaches this server: a wildcard address is reached on loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
