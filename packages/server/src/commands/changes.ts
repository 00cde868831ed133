import type { Store } from '../store/store.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { confirmApiKey } from './authenticate-api-key.ts';
import type { Actor } from './context.ts';
import {
  writeIdempotently,
  type IdempotentOutcome,
  type IdempotentRequest,
} from './idempotency.ts';
import {
  RESULT_CARRIES_SECRET,
  runCommand,
  type CommandContext,
  type CommandInput,
  type CommandName,
  type CommandResult,
} from './registry.ts';

/** How a command runs under an idempotency key (see `writeIdempotently`). */
export interface IdempotentRun {
  actor: Actor;
  /** The key and the request's fingerprint; null runs the command plainly. */
  request: IdempotentRequest | null;
  /** The name the caller knows the key by (`Idempotency-Key`, `idempotencyKey`), for errors. */
  param: string;
  /** The status the fresh answer is recorded with, replayed as it was. */
  statusCode: number;
}

/** What a command runs on behalf of. */
export interface RunOptions {
  /**
   * The SHA-256 of the API key the request came with: the command runs only if
   * that key is still valid, checked in its own transaction (`confirmApiKey`), so
   * a key revoked a moment ago, by any process, changes nothing.
   */
  apiKey?: string | undefined;
}

/**
 * The write side, as the transports use it: every change is a command of the
 * registry, run by name in one write transaction of the store, and answered once
 * it is durable. `serve` runs them on the store thread (threads/), so the event
 * loop that speaks HTTP never waits for SQLite; tests and the CLI run them here.
 */
export interface Changes {
  run<K extends CommandName>(
    name: K,
    input: CommandInput<K>,
    options?: RunOptions,
  ): Promise<CommandResult<K>>;
  /**
   * `run`, with its answer recorded under the request's key in the same
   * transaction; a request that lost a race for the key gets the winner's answer.
   */
  runIdempotently<K extends CommandName>(
    name: K,
    input: CommandInput<K>,
    under: IdempotentRun,
    options?: RunOptions,
  ): Promise<IdempotentOutcome<CommandResult<K>>>;
}

/** Runs command `name` in `tx`, once its API key (if any) is confirmed. */
export async function runConfirmed<K extends CommandName>(
  tx: WriteTx,
  context: CommandContext,
  name: K,
  input: CommandInput<K>,
  options: RunOptions | undefined,
): Promise<CommandResult<K>> {
  if (options?.apiKey === undefined) return runCommand(tx, context, name, input);
  // The check and the command's statements go out together (a round trip less on
  // PostgreSQL); a key found revoked fails the unit, which undoes what the command did.
  // Both have ended before the unit does: a unit must send nothing once it has ended.
  const [key, result] = await Promise.allSettled([
    confirmApiKey(tx, options.apiKey),
    (async () => runCommand(tx, context, name, input))(),
  ]);
  if (key.status === 'rejected') throw key.reason;
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/** Commands run on `store` in this thread. */
export function localChanges(store: Store, context: CommandContext): Changes {
  return {
    run: (name, input, options) =>
      store.write((tx) => runConfirmed(tx, context, name, input, options)),
    runIdempotently: (name, input, under, options) =>
      writeIdempotently(
        store,
        under.actor,
        under.request,
        under.param,
        under.statusCode,
        async (tx) => (await runConfirmed(tx, context, name, input, options)) as object,
        context,
        RESULT_CARRIES_SECRET.has(name),
      ) as never,
  };
}
