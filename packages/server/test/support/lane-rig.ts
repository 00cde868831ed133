// A PostgreSQL store with a table of its own, an admin connection, and another instance
// listening, for the tests of the write lane (test/integration/postgres-lane*.test.ts).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { addNumber } from '../../src/commands/add-number.ts';
import { systemClock } from '../../src/lib/clock.ts';
import type { WriteTx } from '../../src/store/engine/write-queue.ts';
import { listenForSignals, newOrigin } from '../../src/store/engine/postgres-signal-relay.ts';
import { insertAccount } from '../../src/store/repos/accounts.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, type TestDatabase } from './engines.ts';

export interface LaneRig {
  database: TestDatabase;
  store: Store;
  admin: pg.Client;
  close(): Promise<void>;
}

/** Opens the rig; the store relays its batches' signals to the other instance. */
export async function openLaneRig(): Promise<LaneRig> {
  const database = await createTestDatabase('postgres');
  const store = await openStore(database.options);
  const admin = new pg.Client({ connectionString: database.options.databaseUrl! });
  await admin.connect();
  await store.write((tx) =>
    sql`create table lane_rows (id text primary key)`.execute(tx.db).then(() => undefined),
  );
  let heard = false;
  const instance = listenForSignals(
    database.options.databaseUrl!,
    newOrigin(),
    () => (heard = true),
  );
  for (let i = 0; i < 100 && !heard; i++) {
    await store.write(async (tx) => tx.publish('lane.probe', i));
    await sleep(20);
  }
  assert.ok(heard, 'the store relays to the other instance');
  return {
    database,
    store,
    admin,
    close: async () => {
      await instance.close();
      await admin.end();
      await store.close();
      await database.drop();
    },
  };
}

/** An account with one sending number. */
export async function accountWithNumber(
  tx: WriteTx,
  actor: { accountId: string; mode: 'test' },
  phone: string,
): Promise<void> {
  await insertAccount(tx.db, {
    id: actor.accountId,
    name: actor.accountId,
    help_reply: null,
    created_at: Date.now(),
  });
  await addNumber(tx, { ...actor, phone }, { clock: systemClock });
}

export const insert = (tx: WriteTx, id: string) =>
  sql`insert into lane_rows (id) values (${id})`.execute(tx.db);

export const setting = async (tx: WriteTx) =>
  (await sql<{ s: string }>`select current_setting('synchronous_commit') as s`.execute(tx.db))
    .rows[0]!.s;
