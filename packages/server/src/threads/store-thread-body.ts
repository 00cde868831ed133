// The body of the store thread (see store-thread-client.ts): it owns the store's writer,
// runs every command the HTTP thread sends, runs the background workers of the `worker`
// role, and relays the committed-change signals the HTTP thread listens to.
import { parentPort, workerData } from 'node:worker_threads';
import { localChanges } from '../commands/changes.ts';
import type { Config } from '../config.ts';
import type { PostResult, WebhookPoster } from '../delivery/post-webhook.ts';
import { webhookDeps } from '../delivery/webhook-deps.ts';
import { systemClock } from '../lib/clock.ts';
import { createLogger } from '../lib/logger.ts';
import { createSecretBox } from '../lib/secret-box.ts';
import { openStore, type Store } from '../store/store.ts';
import { startBackground, type Background } from '../workers/background.ts';
import {
  carryError,
  Outbox,
  type Batch,
  type FromStoreThread,
  type ToStoreThread,
} from './protocol.ts';

/** What the HTTP thread gives the store thread. */
export interface StoreThreadData {
  config: Config;
  /** The key that seals webhook secrets. */
  secretKey: Uint8Array;
  compileCache?: string | undefined;
}

const port = parentPort!;
const { config, secretKey } = workerData as StoreThreadData;
const logger = createLogger(config.logLevel).child({ thread: 'store' });
const outbox = new Outbox<FromStoreThread>((batch) => port.postMessage(batch));

let store: Store;
try {
  store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    durability: config.durability,
    checkpointThread: true,
  });
} catch (error) {
  outbox.send({ kind: 'fatal', error: carryError(error) });
  outbox.flush();
  throw error;
}
const secrets = createSecretBox(Buffer.from(secretKey));
const changes = localChanges(store, webhookDeps({ clock: systemClock, secrets, config }));

// The HTTP part of webhook attempts is made by the HTTP thread: signing, claiming and
// settling stay here, beside the store, and the POSTs and their responses run on the
// other core, which is mostly idle while deliveries fan out.
const posts = new Map<number, (result: PostResult) => void>();
let nextPostId = 1;
const webhookPoster: WebhookPoster = (post) =>
  new Promise((resolve) => {
    const id = nextPostId++;
    posts.set(id, resolve);
    outbox.send({ kind: 'post', id, post });
  });

/**
 * The background workers, started only once the HTTP thread listens (`start-workers`):
 * a `serve` whose port turned out taken exits without having sent a message or a
 * webhook, where before it delivered for the second or so it took to give up.
 */
let background: Promise<Background | null> | null = null;
function startWorkers(): void {
  if (background) return;
  background = config.roles.includes('worker')
    ? startBackground({ config, store, clock: systemClock, logger, secrets, webhookPoster })
    : Promise.resolve(null);
  background.catch((error: unknown) => {
    outbox.send({ kind: 'fatal', error: carryError(error) });
  });
}

// Signals go to the HTTP thread only for topics it listens to: the realtime hub listens
// only while a softphone is connected, and each relayed signal costs both threads.
const relayed = new Map<string, (payload: unknown) => void>();
function subscribe(topics: string[]): void {
  const wanted = new Set(topics);
  for (const [topic, listener] of relayed) {
    if (wanted.has(topic)) continue;
    store.signals.off(topic, listener);
    relayed.delete(topic);
  }
  for (const topic of wanted) {
    if (relayed.has(topic)) continue;
    const listener = (payload: unknown) => outbox.send({ kind: 'signal', topic, payload });
    store.signals.on(topic, listener);
    relayed.set(topic, listener);
  }
}

const inFlight = new Set<Promise<unknown>>();
let stopping: Promise<void> | null = null;

async function stop(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  // Started or still starting: either way stopped once it has started.
  await (await background?.catch(() => null))?.stop();
  subscribe([]);
  await store.close();
  outbox.send({ kind: 'stopped' });
  outbox.flush();
  port.close();
}

port.on('message', (batch: Batch<ToStoreThread>) => {
  for (const message of batch) {
    if (message.kind === 'posted') {
      posts.get(message.id)?.(message.result);
      posts.delete(message.id);
    } else if (message.kind === 'start-workers') {
      if (!stopping) startWorkers();
    } else if (message.kind === 'subscribe') {
      subscribe(message.topics);
    } else if (message.kind === 'stop') {
      stopping ??= stop();
    } else {
      // Each reply is sent once its command is durable (`Changes` resolves after the commit).
      const running = (
        message.under
          ? changes.runIdempotently(
              message.name,
              message.input as never,
              message.under,
              message.options,
            )
          : changes.run(message.name, message.input as never, message.options)
      ).then(
        (value) => outbox.send({ kind: 'result', id: message.id, value }),
        (error: unknown) =>
          outbox.send({ kind: 'failure', id: message.id, error: carryError(error) }),
      );
      inFlight.add(running);
      void running.finally(() => inFlight.delete(running));
    }
  }
});

outbox.send({ kind: 'ready' });
