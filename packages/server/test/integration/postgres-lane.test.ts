// The PostgreSQL write lane's transactions: what a batch sends, in how many round trips,
// and how it recovers (statement-level batching: postgres-lane-statements.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { Socket } from 'node:net';
import pg from 'pg';
import { type Store } from '../../src/store/store.ts';
import type { WriteOptions, WriteTx } from '../../src/store/engine/write-queue.ts';
import { NOTIFY_QUERY, SIGNAL_CHANNEL } from '../../src/store/engine/postgres-signal-relay.ts';
import { ENGINES } from '../support/engines.ts';
import { insert, openLaneRig, setting, type LaneRig } from '../support/lane-rig.ts';
import { queriesDuring, roundTripsDuring, sentWhenAnswered } from '../support/pg-queries.ts';

if (ENGINES.includes('postgres')) {
  describe('write lanes on PostgreSQL: transactions', () => {
    let rig: LaneRig;
    let store: Store;
    let admin: pg.Client;
    before(async () => {
      rig = await openLaneRig();
      ({ store, admin } = rig);
    });
    after(() => rig?.close());

    test('a batch of one statement is two round trips: its begin goes out with the statement, its notifications with the commit', async () => {
      const { queries, roundTrips } = await roundTripsDuring(() =>
        store.write(async (tx) => {
          await insert(tx, 'counted');
          tx.publish('lane.test', { id: 'counted' });
        }),
      );
      assert.equal(queries.length, 4, queries.join(' | '));
      assert.equal(queries[0], 'begin');
      assert.match(queries[1]!, /^insert into lane_rows/);
      assert.equal(queries[2], NOTIFY_QUERY.text);
      assert.equal(queries[3], 'commit');
      assert.equal(roundTrips, 2);
    });

    test("a batch's statements leave its connection in one write, its notifications and commit in one more", async () => {
      // Every write a socket to the server makes while the batch runs: one system call each,
      // counted per socket (the store's listener may look for other instances meanwhile).
      const port = Number(new URL(rig.database.options.databaseUrl!).port || 5432);
      const writes = new Map<Socket, number>();
      const proto = Socket.prototype as unknown as Record<
        '_write' | '_writev',
        (this: Socket, ...args: unknown[]) => unknown
      >;
      const originals = { _write: proto._write, _writev: proto._writev };
      for (const name of ['_write', '_writev'] as const) {
        proto[name] = function (this: Socket, ...args: unknown[]) {
          if (this.remotePort === port) writes.set(this, (writes.get(this) ?? 0) + 1);
          return originals[name].apply(this, args);
        };
      }
      try {
        const queries = await queriesDuring(() =>
          Promise.all(
            Array.from({ length: 8 }, (_, i) =>
              store.write(async (tx) => {
                const inserted = insert(tx, `one-write-${i}`);
                // The next unit need not wait for this one's answer (WriteTx.sentAll).
                tx.sentAll();
                await inserted;
                tx.publish('lane.test', { i });
              }),
            ),
          ),
        );
        // begin, eight inserts, the notifications and the commit: one write each, before.
        assert.equal(queries.length, 11, queries.join(' | '));
      } finally {
        Object.assign(proto, originals);
      }
      // The lane's socket wrote the most: a listener's look is one write.
      assert.equal(Math.max(...writes.values()), 2);
    });

    test('a batch that need not wait for the disk says so as it begins, in the same query', async () => {
      let inside = '';
      const sent = await queriesDuring(() =>
        store.write(async (tx) => void (inside = await setting(tx)), { durable: false }),
      );
      assert.equal(inside, 'off');
      assert.deepEqual(
        [sent[0], sent.at(-1)],
        ['begin; set local synchronous_commit to off', 'commit'],
      );
      const durable = await store.write(setting);
      assert.equal(durable, 'on', 'the setting ended with its transaction');
    });

    test('signals reach another process only with the commit, and a message with quotes and backslashes arrives intact', async () => {
      const listener = new pg.Client({ connectionString: rig.database.options.databaseUrl! });
      await listener.connect();
      const heard: string[] = [];
      listener.on('notification', (n) => heard.push(n.payload ?? ''));
      await listener.query(`LISTEN ${SIGNAL_CHANNEL}`);
      try {
        const tricky = `it's a "test" \\ with a backslash, and émoji 📞`;
        const rolledBack = store.write(async (tx) => {
          tx.publish('lane.test', { text: 'never' });
          throw new Error('changed its mind');
        });
        await assert.rejects(rolledBack, /changed its mind/);
        await store.write(async (tx) => {
          await insert(tx, 'signalled');
          tx.publish('lane.test', { text: tricky });
        });
        for (let i = 0; i < 100 && heard.length === 0; i++) await sleep(10);
        assert.equal(heard.length, 1);
        // The sender's origin, a space, then the signals.
        const [origin, ...rest] = heard[0]!.split(' ');
        assert.match(origin!, /^[0-9a-f-]{36}$/);
        assert.deepEqual(JSON.parse(rest.join(' ')), [['lane.test', { text: tricky }]]);
      } finally {
        await listener.end();
      }
    });

    test('a unit that swallows a database error beside one that publishes: the batch runs again isolated, the signal is emitted once and only the culprit fails', async () => {
      await store.write((tx) => insert(tx, 'taken'));
      const heard: unknown[] = [];
      const onSignal = (payload: unknown) => heard.push(payload);
      store.signals.on('lane.swallow', onSignal);
      try {
        const settled = await Promise.allSettled([
          store.write(async (tx) => {
            await insert(tx, 'published');
            tx.publish('lane.swallow', 'published');
            return 'published';
          }),
          store.write(async (tx) => {
            // What a unit must not do (see WriteUnit): the transaction is aborted now.
            await insert(tx, 'taken').catch(() => undefined);
            return 'swallowed';
          }),
        ]);
        assert.deepEqual(settled[0], { status: 'fulfilled', value: 'published' });
        assert.equal(settled[1]!.status, 'rejected');
        assert.deepEqual(heard, ['published']);
        const { rows } = await admin.query<{ id: string }>(
          `select id from lane_rows where id in ('published', 'taken') order by id`,
        );
        assert.deepEqual(
          rows.map((r) => r.id),
          ['published', 'taken'],
        );
      } finally {
        store.signals.off('lane.swallow', onSignal);
      }
    });

    test("the next batch's statements go out behind the commit of the one before, before its answer", async () => {
      // Twenty in one turn: a batch of sixteen, then one of four.
      const queries = await queriesDuring(() =>
        Promise.all(
          Array.from({ length: 20 }, (_, i) => store.write((tx) => insert(tx, `overlap-${i}`))),
        ),
      );
      const firstCommit = queries.indexOf('commit');
      const secondBegin = queries.indexOf('begin', firstCommit);
      assert.ok(firstCommit > 0 && secondBegin > firstCommit, queries.join(' | '));
      // Sent before the commit's answer came: no round trip waits for it.
      assert.ok(sentWhenAnswered.get(firstCommit)! > secondBegin, queries.join(' | '));
      const { rows } = await admin.query(
        `select count(*)::int as n from lane_rows where id like 'overlap-%'`,
      );
      assert.deepEqual(rows, [{ n: 20 }]);
    });

    test('a lane whose connection was terminated between batches begins its next one on a new connection: the write commits at the first try', async () => {
      const lanes: NonNullable<WriteOptions['lane']>[] = ['request', 'carrier', 'webhooks'];
      const backendPid = (tx: WriteTx) =>
        sql<{ pid: number }>`select pg_backend_pid() as pid`
          .execute(tx.db)
          .then((r) => r.rows[0]!.pid);
      for (const lane of lanes) {
        const pid = await store.write(backendPid, { lane });
        await admin.query('select pg_terminate_backend($1)', [pid]);
        // At once: the lane's socket has not said yet that the session is gone.
        assert.equal(
          await store.write((tx) => insert(tx, `after-${lane}`).then(() => 'committed'), { lane }),
          'committed',
          lane,
        );
        assert.notEqual(
          await store.write(backendPid, { lane }),
          pid,
          `${lane} on a new connection`,
        );
      }
    });
  });
}
