import type { Writable } from 'node:stream';
import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import pg from 'pg';
import type { DB } from '../schema.ts';
import { registerDirectRunner } from './compiled.ts';
import { TransactionAborted, type Signal, type TransactionRunner } from './write-queue.ts';
import { prepareFixedShapes, types } from './postgres.ts';
import { NOTIFY_QUERY, notifyPayloads, type SignalRelay } from './postgres-signal-relay.ts';

/** How long opening a lane's connection may take before the transaction fails. */
const CONNECT_TIMEOUT_MS = 10_000;

/** SQLSTATE of a statement refused because the transaction had failed before it. */
const IN_FAILED_TRANSACTION = '25P02';

interface LaneConnection {
  client: pg.Client;
  /** Kysely over `client` alone, for the units' statements. */
  db: Kysely<DB>;
  /** Closes the connection; the next transaction opens another. */
  discard(): void;
}

/** One write lane on PostgreSQL: its transactions, and the connection they run on. */
export interface PostgresLane {
  run: TransactionRunner;
  close(): Promise<void>;
}

/**
 * A write lane's transactions (store.ts, WriteOptions.lane), on a connection of the
 * lane's own, one at a time, with as few round trips as they can take.
 *
 * Every round trip to a server that shares the machine costs both processes a
 * system call and a wake-up, and under load a wait for a core. So the connection
 * pipelines: a query goes out at once, without waiting for the answers to those
 * before it, which the server runs first. `begin` (with `set local
 * synchronous_commit to off` when the batch need not wait for the disk) goes out
 * unawaited ahead of the batch's statements; units that have sent all theirs let
 * the next ones send (WriteQueueOptions.pipelined); and the batch's NOTIFYs (its
 * signals for other processes) and its `commit` go out together, with the next
 * batch's statements behind them before their answer comes. A batch of sixteen
 * sends took eighteen round trips one after another; now about two, and the next
 * batch's overlap the commit's wait for the disk. While no other instance listens
 * (`relay.othersListening`), a batch sends no NOTIFYs at all.
 *
 * A transaction left aborted by a statement whose error a unit swallowed is seen at
 * the commit, which PostgreSQL completes as a ROLLBACK, and reported as
 * `TransactionAborted`: the write queue runs that batch again, a savepoint per unit.
 *
 * The connection is opened at the first transaction; one that fails is closed,
 * and the next transaction opens another. A transaction that finds its connection
 * dead as it begins (the server restarted or ended the session, and the socket has
 * not said so yet) begins again on a new one: nothing of it has run.
 */
export function postgresLane(connectionString: string, relay: SignalRelay): PostgresLane {
  let connection: Promise<LaneConnection> | null = null;
  let closed = false;

  const open = (): Promise<LaneConnection> => {
    // A connection that stops answering (a half-open socket, an unreachable host) fails
    // instead of holding the lane forever.
    // Pipelined: a statement goes out at once, without waiting for the answers to those
    // before it, which the server runs first (WriteQueueOptions.pipelined).
    const client = new pg.Client({
      connectionString,
      types,
      keepAlive: true,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      pipeline: true,
    });
    prepareFixedShapes(client);
    writeTogether(client);
    // Kysely runs the units' statements on this one connection: a pool of it alone.
    const only = { query: client.query.bind(client), release: () => {} };
    const pool = { connect: async () => only, end: async () => {} };
    const db = new Kysely<DB>({
      dialect: new PostgresDialect({ pool: pool as unknown as PostgresPool }),
    });
    // Compiled statements go to the connection as they are called, not a few turns later
    // through Kysely's executor: in the order their units called them, which a pipelined
    // batch relies on (a later unit reads what an earlier one wrote).
    registerDirectRunner(db, {
      rows: async (text, values) => (await client.query(text, values as unknown[])).rows,
      changes: async (text, values) =>
        (await client.query(text, values as unknown[])).rowCount ?? 0,
    });
    const opening = client.connect().then(() => ({ client, db, discard }));
    function discard() {
      if (connection === opening) connection = null;
      client.end().catch(() => {});
    }
    client.on('error', discard);
    client.on('end', discard);
    opening.catch(discard);
    return opening;
  };

  /**
   * Runs `body` in a transaction on the lane's connection. `begin` is sent, not
   * awaited: the body's statements follow it down the pipeline. A `begin` that fails
   * means the connection was dead (the server restarted, or ended the session, and
   * its socket had not said so yet): nothing ran, so the transaction runs once more
   * on a new connection. (On a live connection `begin` cannot fail, so no statement
   * of the body can run outside the transaction.)
   */
  const attempt = async (
    body: Parameters<TransactionRunner>[0],
    durable: boolean,
    retry: boolean,
  ): Promise<{ onDisk: Promise<void> }> => {
    const { client, db, discard } = await (connection ??= open());
    const begun = client
      .query(durable ? 'begin' : 'begin; set local synchronous_commit to off')
      .then(
        () => true,
        () => false,
      );
    let signals: Signal[];
    try {
      signals = await body(db);
      if (!(await begun)) throw new Error('The transaction did not begin.');
    } catch (error) {
      if (!(await begun)) {
        // Half begun (`begin` ran, its `set local` did not), or not at all: either way
        // the connection is left for a new one, never reused in an unknown state.
        discard();
        if (retry && !closed) return attempt(body, durable, false);
        throw error;
      }
      // A connection that cannot even roll back is left for a new one.
      await client.query('rollback').catch(discard);
      // A NOTIFY refused because an earlier statement had failed.
      if ((error as { code?: unknown } | null)?.code === IN_FAILED_TRANSACTION) {
        throw new TransactionAborted();
      }
      throw error;
    }
    // Sent, and the lane goes on: the next batch's statements follow the commit down the
    // connection, and the server runs them once it is done. Its answer is the batch's.
    // The NOTIFYs go as a query of their own ahead of it, so that the commit runs even
    // where they fail (the transaction had failed already): it then ends the
    // transaction as a ROLLBACK, and the next batch begins on a clean connection.
    const payloads = relay.othersListening() ? notifyPayloads(relay.origin, signals) : [];
    let notifyError: { code?: unknown } | null = null;
    if (payloads.length > 0) {
      client
        .query({ ...NOTIFY_QUERY, values: [payloads] })
        .catch((error: { code?: unknown }) => (notifyError = error));
    }
    const committed = client.query('commit').then((ended: pg.QueryResult) => {
      if (ended.command !== 'ROLLBACK') return;
      // A NOTIFY that failed on its own (the notification queue full) is the batch's error:
      // running it again would not help. One refused because a statement had failed before
      // it is the aborted transaction's.
      if (notifyError && notifyError.code !== IN_FAILED_TRANSACTION) throw notifyError;
      throw new TransactionAborted();
    });
    return { onDisk: committed };
  };

  const run: TransactionRunner = async (body, durable) => {
    if (closed) throw new Error('The store is closed.');
    return attempt(body, durable, true);
  };

  return {
    run,
    async close() {
      closed = true;
      const current = connection;
      connection = null;
      const opened = await current?.catch(() => null);
      await opened?.client.end().catch(() => {});
    },
  };
}

/**
 * Holds a connection's writes until the code running now, and the promise
 * continuations it sets off, has sent all it will: a batch's statements then leave in
 * one system call instead of one each. In pipeline mode pg writes each query as it is
 * given (corked only around that query's own messages), so a batch of sixteen sends
 * made about twenty writes, each a wake-up of the server's process, which shares the
 * machine's cores with this one. The lane's queries follow an `await`, so they run as
 * promise continuations, and a `process.nextTick` queued from one runs once the
 * continuations are done, before any I/O. The socket is read at each query: on an SSL
 * connection pg replaces it with the TLS one once it has negotiated.
 */
function writeTogether(client: pg.Client): void {
  const connection = (client as unknown as { connection: { stream: Writable } }).connection;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  let corked: Writable | null = null;
  const uncork = () => {
    corked?.uncork();
    corked = null;
  };
  (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
    if (!corked) {
      corked = connection.stream;
      corked.cork();
      process.nextTick(uncork);
    }
    return query(...args);
  };
}
