import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { newId } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { deleteEndedEventsBefore } from '../../src/store/repos/expired-events.ts';
import { deleteIdempotencyKeysBefore } from '../../src/store/repos/idempotency-keys.ts';
import { deleteExpiredSessions } from '../../src/store/repos/sessions.ts';
import { insertWebhookEndpoint } from '../../src/store/repos/webhook-endpoints.ts';
import type { DB } from '../../src/store/schema.ts';
import { RetentionSweep } from '../../src/workers/retention-sweep.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { waitFor } from '../support/messaging.ts';
import {
  DAY_MS,
  present,
  presentKeys,
  presentSessions,
  writeEvent,
  writeIdempotencyKey,
  writeSession,
} from '../support/retention.ts';
import { webhookEndpointRow } from '../support/rows.ts';

const NOW = Date.UTC(2031, 0, 15, 12);
const clock = { now: () => NOW };
const RETENTION = 30 * DAY_MS;

/**
 * A transaction of its own, held open until `commit()`: what another instance's sweep
 * batch, or another lane's, looks like while it runs.
 */
async function openTransaction<T>(
  db: Kysely<DB>,
  body: (trx: Kysely<DB>) => Promise<T>,
): Promise<{ result: T; commit: () => Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let ready!: (result: T) => void;
  let failed!: (error: unknown) => void;
  const started = new Promise<T>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  const done = db.transaction().execute(async (trx) => {
    ready(await body(trx));
    await held;
  });
  // A failure before `ready` fails the opening; one at the commit, `commit()`.
  done.catch(failed);
  const result = await started;
  return {
    result,
    commit: async () => {
      release();
      await done;
    },
  };
}

/** Resolves once some session of this database waits for a row lock (bounded). */
function someoneWaitsForALock(db: Kysely<DB>): Promise<true> {
  return waitFor(async () => {
    const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
    return Number(rows[0]?.n ?? 0) > 0 ? true : undefined;
  }, 'a transaction waiting for a row lock');
}

// Two transactions sweeping, or sweeping and redelivering, at the same time: only
// PostgreSQL has them (SQLite runs one write transaction at a time).
for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`retention sweep beside other transactions [${engine}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(engine, { clock, background: false });
    });
    after(async () => {
      await t.close();
    });

    async function accountWithEndpoint(): Promise<{ acct: TestAccount; endpointId: string }> {
      const acct = await t.newAccount();
      const endpointId = newId('whe', NOW);
      await t.store.write((tx) =>
        insertWebhookEndpoint(
          tx.db,
          webhookEndpointRow({ id: endpointId, account_id: acct.accountId, created_at: NOW }),
        ),
      );
      return { acct, endpointId };
    }

    // A sweep that waited for the other would wait for good: the test's timeout ends it.
    test(
      'two sweeps at once take different rows, and neither waits for the other',
      {
        timeout: 30_000,
      },
      async (context) => {
        const { acct, endpointId } = await accountWithEndpoint();
        const at = NOW - 2 * RETENTION;
        const events: string[] = [];
        const keys: string[] = [];
        const sessions: string[] = [];
        for (let i = 0; i < 12; i++) {
          events.push(
            (await writeEvent(t.store, acct.accountId, at + i, [{ endpointId, status: 'failed' }]))
              .eventId,
          );
          keys.push(`both-${i}`);
          await writeIdempotencyKey(t.store, acct.accountId, `both-${i}`, at + i);
          sessions.push(`${acct.accountId}-both-${i}`);
          await writeSession(t.store, acct.accountId, `${acct.accountId}-both-${i}`, at + i);
        }
        // The other instance's batch, open while this one sweeps.
        const other = await openTransaction(t.store.db, async (trx) => ({
          events: (await deleteEndedEventsBefore(trx, NOW - RETENTION, '', 5)).deleted,
          keys: await deleteIdempotencyKeysBefore(trx, NOW - DAY_MS, 5),
          sessions: await deleteExpiredSessions(trx, NOW, 5),
        }));
        assert.deepEqual(other.result, { events: 5, keys: 5, sessions: 5 });
        context.signal.addEventListener('abort', () => void other.commit());

        const counts = await new RetentionSweep({
          store: t.store,
          clock,
          logger: createLogger('silent'),
          retentionDays: 30,
          batchRows: 3,
        }).sweep();
        await other.commit();

        assert.deepEqual(
          counts,
          { idempotencyKeys: 7, sessions: 7, events: 7, media: 0, inboundRefs: 0 },
          'the rest',
        );
        const { db } = t.store;
        assert.deepEqual(await present(db, 'events', events), []);
        assert.deepEqual(await presentKeys(db, acct.accountId, keys), []);
        assert.deepEqual(await presentSessions(db, sessions), []);
      },
    );

    test('a retry of a delivery the sweep removes meanwhile answers 404', async () => {
      const { acct, endpointId } = await accountWithEndpoint();
      const old = await writeEvent(t.store, acct.accountId, NOW - RETENTION, [
        { endpointId, status: 'failed' },
      ]);
      const sweep = await openTransaction(t.store.db, (trx) =>
        deleteEndedEventsBefore(trx, NOW - RETENTION, '', 100),
      );
      assert.ok(sweep.result.deleted >= 1);

      // It reads the delivery (the removal is not committed), then waits to re-arm it.
      const retry = acct.test.post(
        `/v1/webhook_endpoints/${endpointId}/deliveries/${old.deliveryIds[0]}/retry`,
      );
      await someoneWaitsForALock(t.store.db);
      await sweep.commit();

      const res = await retry;
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.type, 'not_found');
      assert.deepEqual(await present(t.store.db, 'webhook_deliveries', old.deliveryIds), []);
    });

    test('a recovery beside the sweep makes no delivery for an event the sweep removed', async () => {
      const { acct, endpointId } = await accountWithEndpoint();
      const old = await writeEvent(t.store, acct.accountId, NOW - RETENTION, [
        { endpointId, status: 'failed' },
      ]);
      const young = await writeEvent(t.store, acct.accountId, NOW - RETENTION + 1, [
        { endpointId, status: 'failed' },
      ]);
      const sweep = await openTransaction(t.store.db, (trx) =>
        deleteEndedEventsBefore(trx, NOW - RETENTION, '', 100),
      );
      assert.ok(sweep.result.deleted >= 1);

      const recover = acct.test.post(`/v1/webhook_endpoints/${endpointId}/recover`, {
        since: new Date(NOW - 2 * RETENTION).toISOString(),
      });
      await someoneWaitsForALock(t.store.db);
      await sweep.commit();

      const res = await recover;
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.count, 1, 'the young event only');
      const orphans = await t.store.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('event_id', '=', old.eventId)
        .execute();
      assert.deepEqual(orphans, [], 'no delivery of the removed event');
      assert.deepEqual(await present(t.store.db, 'events', [young.eventId]), [young.eventId]);
    });
  });
}
