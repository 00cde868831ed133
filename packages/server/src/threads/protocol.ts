import { ApiError, type ErrorType } from '../domain/errors.ts';
import type { IdempotentRun, RunOptions } from '../commands/changes.ts';
import type { CommandName } from '../commands/registry.ts';
import type { PostResult, WebhookPost } from '../delivery/post-webhook.ts';

/** A command for the store thread to run. */
export interface RunRequest {
  kind: 'run';
  id: number;
  name: CommandName;
  input: unknown;
  /** Present for `runIdempotently`. */
  under?: IdempotentRun;
  options?: RunOptions;
}

/** What the HTTP thread sends the store thread. */
export type ToStoreThread =
  | RunRequest
  /** The signal topics the HTTP thread listens to now; only those are relayed. */
  | { kind: 'subscribe'; topics: string[] }
  /** What the webhook POST the store thread asked for came to. */
  | { kind: 'posted'; id: number; result: PostResult }
  /** The service is listening: start the background workers (of the `worker` role). */
  | { kind: 'start-workers' }
  /** Finish the commands in flight, stop the workers, close the store. */
  | { kind: 'stop' };

/** An error as it crosses threads: an API error keeps its type, the rest only their text. */
export type CarriedError =
  | {
      api: true;
      type: ErrorType;
      message: string;
      param?: string | undefined;
      headers: Record<string, string>;
    }
  | { api: false; name: string; message: string; stack?: string | undefined };

/** What the store thread sends the HTTP thread. */
export type FromStoreThread =
  | { kind: 'ready' }
  | { kind: 'result'; id: number; value: unknown }
  | { kind: 'failure'; id: number; error: CarriedError }
  | { kind: 'signal'; topic: string; payload: unknown }
  /** A signed webhook delivery for the HTTP thread to POST (see WebhookPoster). */
  | { kind: 'post'; id: number; post: WebhookPost }
  | { kind: 'stopped' }
  /** The store thread cannot go on (its store failed to open, a worker crashed). */
  | { kind: 'fatal'; error: CarriedError };

/** Messages are sent in batches: one per turn of the sender's event loop. */
export type Batch<T> = T[];

/** `error` as it can cross to another thread. */
export function carryError(error: unknown): CarriedError {
  if (error instanceof ApiError) {
    return {
      api: true,
      type: error.type,
      message: error.message,
      param: error.param,
      headers: error.headers,
    };
  }
  const e = error instanceof Error ? error : new Error(String(error));
  return { api: false, name: e.name, message: e.message, stack: e.stack };
}

/** The error a carried one stands for on this side: an ApiError as thrown, any other as an Error. */
export function restoreError(carried: CarriedError): Error {
  if (carried.api) {
    return new ApiError(carried.type, carried.message, {
      ...(carried.param === undefined ? {} : { param: carried.param }),
      headers: carried.headers,
    });
  }
  const error = new Error(carried.message);
  error.name = carried.name;
  if (carried.stack) error.stack = `${carried.stack}\n    (on the store thread)`;
  return error;
}

/**
 * Most messages per `post`: a burst larger than this leaves in several, so the
 * other thread starts on the first ones while this one is still on the rest (see
 * MAX_BATCH in store/engine/write-queue.ts).
 */
const MAX_BATCH = 16;

/**
 * Collects messages for one `post` per turn of the event loop, or per MAX_BATCH:
 * a burst of requests (or of answers) costs a few messages between the threads,
 * not one each.
 */
export class Outbox<T> {
  #items: T[] = [];
  #scheduled = false;
  readonly #post: (batch: Batch<T>) => void;

  constructor(post: (batch: Batch<T>) => void) {
    this.#post = post;
  }

  send(item: T): void {
    this.#items.push(item);
    if (this.#items.length >= MAX_BATCH) {
      this.flush();
      return;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.flush();
    });
  }

  /** Posts what is waiting now. */
  flush(): void {
    if (this.#items.length === 0) return;
    const items = this.#items;
    this.#items = [];
    this.#post(items);
  }
}
