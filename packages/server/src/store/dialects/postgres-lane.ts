import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import pg from 'pg';
import type { DB } from '../schema.ts';
import { TransactionAborted, type TransactionRunner } from '../write-queue.ts';
import { prepareFixedShapes, types } from './postgres.ts';
import { notifyStatements } from './postgres-signal-relay.ts';

// A synchronous commit has waited for the disk already.
const ON_DISK = Promise.resolve();

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
 * Every statement is a round trip to a server that shares the machine, and each
 * costs both processes a system call and a wake-up, while a batch's own statements
 * are often few (a dispatcher claim is one UPDATE). So the lane opens and ends its
 * transactions itself rather than through Kysely's `transaction()`: `begin` goes
 * out together with `set local synchronous_commit to off` when the batch need not
 * wait for the disk, and the batch's NOTIFYs (its signals for other processes) together with
 * the `commit`: one query each, instead of up to four. A transaction left
 * aborted by a statement whose error a unit swallowed is seen at the commit,
 * which PostgreSQL completes as a ROLLBACK (or in the NOTIFY it refuses), and
 * reported as `TransactionAborted`: the write queue runs that batch again, a
 * savepoint per unit.
 *
 * The connection is opened at the first transaction; one that fails is closed,
 * and the next transaction opens another. A transaction that finds its connection
 * dead as it begins (the server restarted or ended the session, and the socket has
 * not said so yet) begins again on a new one: nothing of it has run.
 */
export function postgresLane(connectionString: string, origin: string): PostgresLane {
  let connection: Promise<LaneConnection> | null = null;
  let closed = false;

  const open = (): Promise<LaneConnection> => {
    // A connection that stops answering (a half-open socket, an unreachable host) fails
    // instead of holding the lane forever.
    const client = new pg.Client({
      connectionString,
      types,
      keepAlive: true,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    prepareFixedShapes(client);
    // Kysely runs the units' statements on this one connection: a pool of it alone.
    const only = { query: client.query.bind(client), release: () => {} };
    const pool = { connect: async () => only, end: async () => {} };
    const db = new Kysely<DB>({
      dialect: new PostgresDialect({ pool: pool as unknown as PostgresPool }),
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
   * A connection with a transaction begun. Nothing has run in it yet, so a connection
   * found dead here (the server restarted, or ended the session, and its socket has
   * not said so yet) is replaced and the transaction begun once more on a new one.
   */
  const begin = async (durable: boolean, retry = true): Promise<LaneConnection> => {
    const opened = await (connection ??= open());
    try {
      await opened.client.query(durable ? 'begin' : 'begin; set local synchronous_commit to off');
      return opened;
    } catch (error) {
      // Half begun (`begin` ran, its `set local` did not), or not at all: either way
      // the connection is left for a new one, never reused in an unknown state.
      opened.discard();
      if (retry && !closed) return begin(durable, false);
      throw error;
    }
  };

  const run: TransactionRunner = async (body, durable) => {
    if (closed) throw new Error('The store is closed.');
    const { client, db, discard } = await begin(durable);
    let ended: pg.QueryResult | pg.QueryResult[];
    try {
      const signals = await body(db);
      ended = await client.query(`${notifyStatements(origin, signals)}commit`);
    } catch (error) {
      // A connection that cannot even roll back is left for a new one.
      await client.query('rollback').catch(discard);
      // A NOTIFY refused because an earlier statement had failed.
      if ((error as { code?: unknown } | null)?.code === IN_FAILED_TRANSACTION) {
        throw new TransactionAborted();
      }
      throw error;
    }
    const commit = Array.isArray(ended) ? ended.at(-1)! : ended;
    if (commit.command === 'ROLLBACK') throw new TransactionAborted();
    return { onDisk: ON_DISK };
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
