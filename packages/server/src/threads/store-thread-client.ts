import { EventEmitter } from 'node:events';
import module from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Changes } from '../commands/changes.ts';
import type { Agent } from 'undici';
import type { Config } from '../config.ts';
import { webhookDispatcher } from '../delivery/guarded-dispatcher.ts';
import { postWebhook } from '../delivery/post-webhook.ts';
import type { Logger } from '../lib/logger.ts';
import {
  Outbox,
  restoreError,
  type Batch,
  type FromStoreThread,
  type RunRequest,
  type ToStoreThread,
} from './protocol.ts';
import type { StoreThreadData } from './store-thread-body.ts';

/** The store thread as the HTTP thread sees it. */
export interface StoreThread {
  /** Every change, run on the store thread. */
  changes: Changes;
  /** The store thread's committed-change signals, for the topics listened to here. */
  signals: EventEmitter;
  /** Starts the background workers of the `worker` role; called once the service listens. */
  startWorkers(): void;
  /** Finishes the commands in flight, stops the workers and closes the store. */
  stop(): Promise<void>;
}

// Emitted by the EventEmitter itself; never a signal.
const EMITTER_EVENTS = new Set(['newListener', 'removeListener']);

/**
 * Starts the store thread: a worker thread that owns the store's writer, runs
 * every command, and runs the background workers of the `worker` role.
 *
 * `node:sqlite` is synchronous, and a change holds the event loop that runs it for
 * every statement and for the commit's write of the log (about 20 µs of a send's
 * 30, under load). On the thread that also speaks HTTP that time is taken from
 * parsing and answering requests; on its own thread it runs beside them, on the
 * machine's other core. The HTTP thread keeps a read-only connection of its own.
 * A command's answer arrives once it is durable, exactly as from `localChanges`;
 * a burst of commands (and of answers) crosses between the threads as one message.
 *
 * Resolves once the store is open and migrated; rejects if it cannot be.
 * `onFatal` hears of a store thread that died later: nothing can change after
 * that, and the process should stop.
 */
export async function startStoreThread(options: {
  config: Config;
  secretKey: Buffer;
  logger: Logger;
  onFatal: (error: Error) => void;
}): Promise<StoreThread> {
  const data: StoreThreadData = {
    config: options.config,
    secretKey: new Uint8Array(options.secretKey),
    compileCache: module.getCompileCacheDir?.(),
  };
  const worker = new Worker(new URL('./store-thread.js', import.meta.url), { workerData: data });
  const pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (e: Error) => void }
  >();
  const signals = new EventEmitter();
  signals.setMaxListeners(0);
  const outbox = new Outbox<ToStoreThread>((batch) => worker.postMessage(batch));
  // Webhook POSTs the store thread's delivery worker asks for (see store-thread-body.ts),
  // through a dispatcher made at the first: a service without endpoints never loads undici.
  let webhooks: Agent | null = null;
  const webhooksDispatcher = () =>
    (webhooks ??= webhookDispatcher({ allowPrivate: options.config.webhookAllowPrivate }));
  let webhooksClosed: Promise<void> | null = null;
  let nextId = 1;
  let dead: Error | null = null;
  let stopped: (() => void) | null = null;
  let ready: { resolve: () => void; reject: (error: Error) => void } | null = null;
  const started = new Promise<void>((resolve, reject) => (ready = { resolve, reject }));

  const die = (error: Error) => {
    if (dead) return;
    dead = error;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
    if (ready) ready.reject(error);
    else if (!stopped) options.onFatal(error);
  };

  worker.on('message', (batch: Batch<FromStoreThread>) => {
    for (const message of batch) {
      switch (message.kind) {
        case 'ready':
          ready?.resolve();
          ready = null;
          break;
        case 'result':
          pending.get(message.id)?.resolve(message.value);
          pending.delete(message.id);
          break;
        case 'failure':
          pending.get(message.id)?.reject(restoreError(message.error));
          pending.delete(message.id);
          break;
        case 'signal':
          signals.emit(message.topic, message.payload);
          break;
        case 'post': {
          const { id } = message;
          void postWebhook({ ...message.post, dispatcher: webhooksDispatcher() }).then((result) =>
            outbox.send({ kind: 'posted', id, result }),
          );
          break;
        }
        case 'stopped':
          stopped?.();
          break;
        case 'fatal':
          die(restoreError(message.error));
          break;
      }
    }
  });
  worker.on('error', (error) => die(error));
  worker.on('exit', (code) => {
    webhooksClosed ??= webhooks?.close() ?? Promise.resolve();
    if (!stopped) die(new Error(`The store thread exited (code ${code}).`));
  });

  // Tell the store thread which signal topics are listened to here, once per turn.
  let syncScheduled = false;
  const syncTopics = () => {
    if (syncScheduled) return;
    syncScheduled = true;
    setImmediate(() => {
      syncScheduled = false;
      const topics = signals
        .eventNames()
        .filter((name): name is string => typeof name === 'string' && !EMITTER_EVENTS.has(name));
      outbox.send({ kind: 'subscribe', topics });
    });
  };
  signals.on('newListener', syncTopics);
  signals.on('removeListener', syncTopics);

  const send = (request: Omit<RunRequest, 'kind' | 'id'>): Promise<never> => {
    if (dead) return Promise.reject(dead);
    const id = nextId++;
    return new Promise<never>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      outbox.send({ kind: 'run', id, ...request });
    });
  };

  await started;
  return {
    signals,
    changes: {
      run: (name, input, options) => send({ name, input, options }),
      runIdempotently: (name, input, under, options) => send({ name, input, under, options }),
    },
    startWorkers() {
      if (!dead) outbox.send({ kind: 'start-workers' });
    },
    async stop() {
      if (dead) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      await new Promise<void>((resolve) => {
        stopped = resolve;
        outbox.send({ kind: 'stop' });
        outbox.flush();
      });
      await exited;
      await webhooksClosed;
    },
  };
}
