import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { Socket } from 'node:net';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/store.ts';
import type { WriteOptions, WriteTx } from '../../src/store/engine/write-queue.ts';
import {
  LISTENER_NAME,
  listenForSignals,
  newOrigin,
  NOTIFY_QUERY,
  SIGNAL_CHANNEL,
} from '../../src/store/engine/postgres-signal-relay.ts';
import { pendingDelivery, recordEvents } from '../../src/commands/record-event.ts';
import {
  applySettlements,
  planSettlement,
  settleAttempt,
} from '../../src/delivery/settle-attempt.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { addNumber } from '../../src/commands/add-number.ts';
import { sendMessage } from '../../src/commands/send-message.ts';
import { applyDeliveryReceipts } from '../../src/commands/apply-delivery-receipts.ts';
import { ApiError } from '../../src/domain/errors.ts';
import { addOptOut } from '../../src/store/repos/opt-outs.ts';
import { recordCarrierRefs } from '../../src/store/repos/recipient-moves.ts';
import { insertAccount } from '../../src/store/repos/accounts.ts';
import { findDelivery, insertDeliveries } from '../../src/store/repos/webhook-deliveries.ts';
import { insertWebhookEndpoint } from '../../src/store/repos/webhook-endpoints.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { webhookEndpointRow } from '../support/rows.ts';
import { startTestApp } from '../support/app.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';

/**
 * Records the queries pg clients of this process send while `recording` is set:
 * each is a round trip to the server. Installed before the store opens, since the
 * store's connections keep the `query` they were made with. A listener's own queries
 * (its look for other instances, once a second) are no lane's and are not recorded.
 */
const sent: string[] = [];
let recording = false;
/** Queries sent and not yet answered while recording, and the most there were at once. */
let inFlight = 0;
let peakInFlight = 0;
/** Queries sent while no other was waiting for its answer: the waits a batch cost. */
let roundTrips = 0;
/** For each query of `sent` answered: how many had been sent when its answer came. */
const sentWhenAnswered = new Map<number, number>();
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [text] = args;
  const result = (query as (...a: unknown[]) => unknown).apply(this, args);
  const name = (this as unknown as { connectionParameters: { application_name?: string } })
    .connectionParameters.application_name;
  if (recording && name !== LISTENER_NAME) {
    sent.push(typeof text === 'string' ? text : ((text as { text?: string }).text ?? '?'));
    if (result instanceof Promise) {
      // Sent with nothing awaited: the client waits for this one's answer.
      if (inFlight === 0) roundTrips++;
      peakInFlight = Math.max(peakInFlight, ++inFlight);
      const index = sent.length - 1;
      const answered = () => {
        inFlight--;
        sentWhenAnswered.set(index, sent.length);
      };
      result.then(answered, answered);
    }
  }
  return result;
} as typeof query;

/** The most queries that were sent and not yet answered at once while `fn` ran. */
async function peakInFlightDuring(fn: () => Promise<unknown>): Promise<number> {
  inFlight = 0;
  peakInFlight = 0;
  await queriesDuring(fn);
  return peakInFlight;
}

/** The queries sent while `fn` ran, and how many round trips they took. */
async function roundTripsDuring(fn: () => Promise<unknown>) {
  inFlight = 0;
  roundTrips = 0;
  const queries = await queriesDuring(fn);
  return { queries, roundTrips };
}

/** A batch's statements but its NOTIFYs, which go out together with its commit. */
const statementsOf = (sent: string[]) => sent.filter((q) => !q.startsWith('select pg_notify('));

async function queriesDuring(fn: () => Promise<unknown>): Promise<string[]> {
  sent.length = 0;
  sentWhenAnswered.clear();
  recording = true;
  try {
    await fn();
  } finally {
    recording = false;
  }
  return [...sent];
}

if (ENGINES.includes('postgres')) {
  describe('write lanes on PostgreSQL: transactions', () => {
    let database: TestDatabase;
    let store: Store;
    let admin: pg.Client;

    /** Another instance on the database: the store relays its batches' signals to it. */
    let instance: { close(): Promise<void> };

    before(async () => {
      database = await createTestDatabase('postgres');
      store = await openStore(database.options);
      admin = new pg.Client({ connectionString: database.options.databaseUrl! });
      await admin.connect();
      await store.write((tx) =>
        sql`create table lane_rows (id text primary key)`.execute(tx.db).then(() => undefined),
      );
      let heard = false;
      instance = listenForSignals(database.options.databaseUrl!, newOrigin(), () => (heard = true));
      for (let i = 0; i < 100 && !heard; i++) {
        await store.write(async (tx) => tx.publish('lane.probe', i));
        await sleep(20);
      }
      assert.ok(heard, 'the store relays to the other instance');
    });
    after(async () => {
      await instance.close();
      await admin.end();
      await store.close();
      await database.drop();
    });

    /** An account with one sending number. */
    const accountWithNumber = async (
      tx: WriteTx,
      actor: { accountId: string; mode: 'test' },
      phone: string,
    ) => {
      await insertAccount(tx.db, {
        id: actor.accountId,
        name: actor.accountId,
        help_reply: null,
        created_at: Date.now(),
      });
      await addNumber(tx, { ...actor, phone }, { clock: systemClock });
    };
    const insert = (tx: WriteTx, id: string) =>
      sql`insert into lane_rows (id) values (${id})`.execute(tx.db);
    const setting = async (tx: WriteTx) =>
      (await sql<{ s: string }>`select current_setting('synchronous_commit') as s`.execute(tx.db))
        .rows[0]!.s;

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
      // Every write a socket to the server makes while the batch runs: one system call each.
      const port = Number(new URL(database.options.databaseUrl!).port || 5432);
      let writes = 0;
      const proto = Socket.prototype as unknown as Record<
        '_write' | '_writev',
        (this: Socket, ...args: unknown[]) => unknown
      >;
      const originals = { _write: proto._write, _writev: proto._writev };
      for (const name of ['_write', '_writev'] as const) {
        proto[name] = function (this: Socket, ...args: unknown[]) {
          if (this.remotePort === port) writes++;
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
      assert.equal(writes, 2);
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
      const listener = new pg.Client({ connectionString: database.options.databaseUrl! });
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

    /** An endpoint of a new account, and a claimed delivery to it of each of `eventIds`. */
    async function claimedDeliveries(account: string, eventIds: string[], now: number) {
      const endpoint = webhookEndpointRow({
        id: `whe_${account}`,
        account_id: account,
        created_at: now,
      });
      const deliveries = eventIds.map((id) => ({
        ...pendingDelivery(id, endpoint.id, now),
        locked_until: now + 1,
      }));
      await store.write(async (tx) => {
        await insertAccount(tx.db, {
          id: account,
          name: 'Lane',
          help_reply: null,
          created_at: now,
        });
        await insertWebhookEndpoint(tx.db, endpoint);
        await tx.db
          .insertInto('events')
          .values(
            eventIds.map((id) => ({
              id,
              account_id: account,
              mode: 'test',
              type: 'contact.created',
              data: '{}',
              created_at: now,
              endpoint_id: null,
            })),
          )
          .execute();
        await insertDeliveries(tx.db, deliveries);
      });
      return { endpoint, deliveries };
    }
    const ok = { status: 200, excerpt: 'ok', durationMs: 3 };

    test('a webhook attempt is logged and its delivery settled in one statement', async () => {
      const now = Date.now();
      const { endpoint, deliveries } = await claimedDeliveries('acct_lane', ['evt_lane'], now);
      const delivery = deliveries[0]!;
      const deps = { store, clock: systemClock, random: () => 0.5 };
      const sent = await queriesDuring(() => settleAttempt(deps, delivery, endpoint, now, ok));
      assert.equal(sent.length, 3, sent.join(' | '));
      assert.match(sent[1]!, /^with "attempt" as \(insert into "webhook_attempts"/);
      assert.equal((await findDelivery(store.db, delivery.id))?.status, 'succeeded');
      const { rows } = await admin.query(
        'select status_code from webhook_attempts where delivery_id = $1',
        [delivery.id],
      );
      assert.deepEqual(rows, [{ status_code: 200 }]);
    });

    test('attempts settled together are logged and their deliveries settled in one statement', async () => {
      const now = Date.now();
      const events = ['evt_many_1', 'evt_many_2', 'evt_many_3'];
      const { endpoint, deliveries } = await claimedDeliveries('acct_lane_many', events, now);
      const deps = { clock: systemClock, random: () => 0.5 };
      const plans = deliveries.map((d) => planSettlement(deps, d, endpoint, now, ok));
      const sent = await queriesDuring(() =>
        store.write((tx) => applySettlements(tx, plans), { lane: 'webhooks' }),
      );
      // Its plan settings (withFixedIndexPlans) leave with it, unawaited, on the lane's pipeline.
      assert.equal(sent.length, 4, sent.join(' | '));
      assert.match(sent[1]!, /set_config\('plan_cache_mode', 'force_generic_plan', true\)/);
      assert.match(sent[2]!, /^with "attempt" as \(\s*insert into "webhook_attempts"/);
      assert.match(sent[2]!, /unnest/);
      for (const d of deliveries) {
        assert.equal((await findDelivery(store.db, d.id))?.status, 'succeeded');
      }
      const { rows } = await admin.query(
        'select count(*)::int as n from webhook_attempts where delivery_id = any($1)',
        [deliveries.map((d) => d.id)],
      );
      assert.deepEqual(rows, [{ n: 3 }]);
    });

    test("a one-to-one send's opt-out check and its rows are one statement, and an opted-out send leaves nothing", async () => {
      const now = Date.now();
      const actor = { accountId: 'acct_lane_send', mode: 'test' as const };
      const from = '+13035550100';
      await store.write(async (tx) => {
        await accountWithNumber(tx, actor, from);
        await addOptOut(tx.db, {
          account_id: actor.accountId,
          mode: actor.mode,
          phone: '+13035550199',
          created_at: now,
        });
      });
      const send = (to: string) =>
        store.write((tx) =>
          sendMessage(tx, actor, { from, to, body: 'hi' }, { clock: systemClock }),
        );
      // The first send opens the thread; the next one finds it in the store's memo.
      await send('+13035550142');
      const sent = statementsOf(await queriesDuring(() => send('+13035550142')));
      assert.equal(sent.length, 3, sent.join(' | '));
      assert.match(sent[1]!, /^with "message" as \(insert into "messages"/);
      assert.match(sent[1]!, /"opt_outs"/);
      // Rows of the account: its messages, their recipients, its threads and their participants.
      const stored = () =>
        admin
          .query(
            `select (select count(*)::int from messages where account_id = $1) as messages,
               (select count(*)::int from message_recipients r join messages m on m.id = r.message_id
                 where m.account_id = $1) as recipients,
               (select count(*)::int from conversations where account_id = $1) as conversations,
               (select count(*)::int from conversation_participants p join conversations c
                 on c.id = p.conversation_id where c.account_id = $1) as participants`,
            [actor.accountId],
          )
          .then((r) => r.rows[0] as Record<string, number>);
      const before = await stored();
      assert.equal(before.messages, 2);
      await assert.rejects(
        send('+13035550199'),
        (error: unknown) => error instanceof ApiError && error.type === 'recipient_opted_out',
      );
      assert.deepEqual(
        await stored(),
        before,
        'the opted-out send, to a new thread, stored nothing',
      );
    });

    test('a first send to a number looks its thread up once, then opens it with its participant in one statement', async () => {
      const actor = { accountId: 'acct_lane_open', mode: 'test' as const };
      const from = '+13035550101';
      await store.write((tx) => accountWithNumber(tx, actor, from));
      const send = (to: string) =>
        store.write((tx) =>
          sendMessage(tx, actor, { from, to, body: 'hi' }, { clock: systemClock }),
        );
      // A send to another number first: the sending number is then known to the store's memo.
      await send('+13035550341');
      const to = '+13035550342';
      const sent = statementsOf(await queriesDuring(() => send(to)));
      // begin, the thread's lookup, its opening, the send's rows, commit.
      assert.equal(sent.length, 5, sent.join(' | '));
      assert.match(sent[2]!, /^with "created" as \(insert into "conversations"/);
      assert.match(sent[2]!, /insert into "conversation_participants"/);
      const { rows } = await admin.query(
        `select p.phone, p.active from conversation_participants p
           join conversations c on c.id = p.conversation_id
         where c.account_id = $1 and c.peer_phone = $2`,
        [actor.accountId, to],
      );
      assert.deepEqual(rows, [{ phone: to, active: 1 }]);
    });

    test("a dispatcher round's carrier references are recorded in one statement", async () => {
      const now = Date.now();
      const actor = { accountId: 'acct_lane_refs', mode: 'test' as const };
      const from = '+13035550150';
      const to = ['+14155560301', '+14155560302', '+14155560303'];
      await store.write(async (tx) => {
        await insertAccount(tx.db, {
          id: actor.accountId,
          name: 'Refs',
          help_reply: null,
          created_at: now,
        });
        await addNumber(tx, { ...actor, phone: from }, { clock: systemClock });
      });
      const message = await store.write((tx) =>
        sendMessage(tx, actor, { from, to, body: 'hi all' }, { clock: systemClock }),
      );
      const refs = to.map((phone, i) => ({ messageId: message.id, phone, carrierRef: `ref_${i}` }));
      const sent = await queriesDuring(() =>
        store.write((tx) => recordCarrierRefs(tx.db, refs, now + 1), { lane: 'carrier' }),
      );
      // begin, the settings that keep it on indexes (withIndexedPlans), the update, commit.
      assert.equal(sent.length, 4, sent.join(' | '));
      assert.match(sent[1]!, /enable_seqscan/);
      assert.match(sent[2]!, /^update "message_recipients" as "r"/);
      const { rows } = await admin.query(
        'select phone, carrier_ref, updated_at::text from message_recipients where message_id = $1 order by phone',
        [message.id],
      );
      assert.deepEqual(
        rows,
        to.map((phone, i) => ({ phone, carrier_ref: `ref_${i}`, updated_at: String(now + 1) })),
      );
    });

    /** An account with a number, an endpoint for message.delivered and `count` one-to-one sends, each given a carrier reference. */
    async function sentWithReferences(accountId: string, from: string, count: number) {
      const now = Date.now();
      const actor = { accountId, mode: 'test' as const };
      await store.write(async (tx) => {
        await insertAccount(tx.db, {
          id: accountId,
          name: 'Receipts',
          help_reply: null,
          created_at: now,
        });
        await addNumber(tx, { ...actor, phone: from }, { clock: systemClock });
        await insertWebhookEndpoint(
          tx.db,
          webhookEndpointRow({
            id: `we_${accountId}`,
            account_id: accountId,
            created_at: now,
            events_json: '["message.delivered"]',
          }),
        );
      });
      const refs: string[] = [];
      for (let i = 0; i < count; i++) {
        const to = `+1415556040${i}`;
        const message = await store.write((tx) =>
          sendMessage(tx, actor, { from, to, body: `hi ${i}` }, { clock: systemClock }),
        );
        const carrierRef = `ref_${accountId}_${i}`;
        await store.write(
          (tx) => recordCarrierRefs(tx.db, [{ messageId: message.id, phone: to, carrierRef }], now),
          { lane: 'carrier' },
        );
        refs.push(carrierRef);
      }
      const statuses = () =>
        admin
          .query(
            `select r.status, (select count(*)::int from events e where e.data::json->>'id' = m.id) as events,
               (select count(*)::int from webhook_deliveries d join events e on e.id = d.event_id
                 where e.data::json->>'id' = m.id) as deliveries
             from message_recipients r join messages m on m.id = r.message_id
             where m.account_id = $1 order by r.carrier_ref`,
            [accountId],
          )
          .then((r) => r.rows as { status: string; events: number; deliveries: number }[]);
      return { refs, statuses };
    }

    test("a batch of one-to-one messages' receipts moves their recipients in one statement and records their events in one more", async () => {
      const { refs, statuses } = await sentWithReferences('acct_lane_receipts', '+13035550160', 5);
      const receipts = refs.map((carrierRef) => ({
        carrierRef,
        status: 'delivered' as const,
        failureReason: null,
      }));
      let outcomes: unknown;
      const sent = statementsOf(
        await queriesDuring(async () => {
          outcomes = await store.write(
            (tx) => applyDeliveryReceipts(tx, receipts, { clock: systemClock }),
            { lane: 'carrier' },
          );
        }),
      );
      assert.deepEqual(outcomes, Array(5).fill('applied'));
      // begin, the recipients and their locked messages, the moves, the events with the
      // endpoints, the deliveries, and the commit: one statement each, whatever the batch's
      // size; the lookup and the moves each after the settings that keep them on indexes.
      assert.equal(sent.length, 9, sent.join(' | '));
      assert.match(sent[1]!, /enable_seqscan/);
      assert.match(sent[4]!, /enable_seqscan/);
      assert.match(sent[5]!, /unnest/);
      assert.deepEqual(
        await statuses(),
        Array(5).fill({ status: 'delivered', events: 1, deliveries: 1 }),
      );
    });

    test('a receipt whose recipient another instance moved between the read and the lock is judged as the row is now, beside one that moves', async () => {
      const { refs, statuses } = await sentWithReferences('acct_lane_raced', '+13035550161', 2);
      // Another instance holds the first message's lock and reports it sent meanwhile:
      // planned from `queued`, the receipt's move no longer applies, and it is judged again.
      const other = new pg.Client({ connectionString: database.options.databaseUrl! });
      await other.connect();
      try {
        await other.query('begin');
        const { rows } = await other.query(
          'select m.id from messages m join message_recipients r on r.message_id = m.id where r.carrier_ref = $1 for update of m',
          [refs[0]],
        );
        const applying = store.write(
          (tx) =>
            applyDeliveryReceipts(
              tx,
              refs.map((carrierRef) => ({
                carrierRef,
                status: 'delivered' as const,
                failureReason: null,
              })),
              { clock: systemClock },
            ),
          { lane: 'carrier' },
        );
        // The receipts' unit has read the recipients and waits for the lock.
        for (let i = 0; i < 200; i++) {
          const waiting = await admin.query(
            `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
          );
          if (waiting.rows[0].n > 0) break;
          await sleep(10);
        }
        await other.query(`update message_recipients set status = 'sent' where carrier_ref = $1`, [
          refs[0],
        ]);
        await other.query(`update messages set status = 'sent' where id = $1`, [rows[0].id]);
        await other.query('commit');
        assert.deepEqual(await applying, ['applied', 'applied']);
      } finally {
        await other.end();
      }
      assert.deepEqual(await statuses(), [
        { status: 'delivered', events: 1, deliveries: 1 },
        { status: 'delivered', events: 1, deliveries: 1 },
      ]);
    });

    test("a batch of receipts' events to many endpoints creates all their deliveries, past the limit of one statement's parameters", async () => {
      const now = Date.now();
      const actor = { accountId: 'acct_lane_many_endpoints', mode: 'test' as const };
      await store.write(async (tx) => {
        await insertAccount(tx.db, {
          id: actor.accountId,
          name: 'Many endpoints',
          help_reply: null,
          created_at: now,
        });
        for (let i = 0; i < 12; i++) {
          await insertWebhookEndpoint(
            tx.db,
            webhookEndpointRow({
              id: `we_many_${i}`,
              account_id: actor.accountId,
              created_at: now,
              events_json: '["message.delivered"]',
            }),
          );
        }
      });
      // 500 events (a round of receipts) × 12 endpoints × 11 values a delivery: 66 000.
      const events = Array.from({ length: 500 }, (_, i) => ({
        actor,
        type: 'message.delivered' as const,
        data: { id: `msg_many_${i}` },
        at: now,
      }));
      await store.write((tx) => recordEvents(tx, events), { lane: 'carrier' });
      const { rows } = await admin.query(
        `select count(*)::int as n from webhook_deliveries where endpoint_id like 'we_many_%'`,
      );
      assert.deepEqual(rows, [{ n: 6000 }]);
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

  describe('write lanes on PostgreSQL: signals for other instances', () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase('postgres');
    });
    after(() => database.drop());

    test('while no other instance listens, a batch sends no NOTIFY, and its signals are still emitted in its own process', async () => {
      const store = await openStore(database.options);
      try {
        const heard: unknown[] = [];
        store.signals.on('lane.alone', (payload) => heard.push(payload));
        // Until its listener has looked for others, the store assumes they listen.
        let queries: string[] = [];
        for (let i = 0; i < 100; i++) {
          queries = await queriesDuring(() =>
            store.write(async (tx) => tx.publish('lane.alone', i)),
          );
          if (!queries.includes(NOTIFY_QUERY.text)) break;
          await sleep(20);
        }
        assert.deepEqual(queries, ['begin', 'commit']);
        assert.equal(heard.length > 0 && heard.at(-1), heard.length - 1);
      } finally {
        await store.close();
      }
    });

    test("a command's store does not listen, and relays every batch's signals whoever listens", async () => {
      const store = await openStore({ ...database.options, hearOthers: false });
      try {
        for (let i = 0; i < 3; i++) {
          const queries = await queriesDuring(() =>
            store.write(async (tx) => tx.publish('lane.command', i)),
          );
          assert.deepEqual(queries, ['begin', NOTIFY_QUERY.text, 'commit']);
          await sleep(20);
        }
        // The store of the test before may take a moment to leave pg_stat_activity.
        const client = new pg.Client({ connectionString: database.options.databaseUrl! });
        await client.connect();
        let listeners = -1;
        try {
          for (let i = 0; i < 100 && listeners !== 0; i++) {
            const { rows } = await client.query<{ n: string }>(
              `select count(*) as n from pg_stat_activity
                where datname = current_database() and application_name = $1`,
              [LISTENER_NAME],
            );
            listeners = Number(rows[0]!.n);
            if (listeners !== 0) await sleep(20);
          }
        } finally {
          await client.end();
        }
        assert.equal(listeners, 0, 'no listening connection');
      } finally {
        await store.close();
      }
    });
  });

  describe('write lanes on PostgreSQL: pipelined sends', () => {
    test("the one-to-one sends of a batch go to the server together, behind its begin and its key's lookup, before the first answer comes", async () => {
      const t = await startTestApp('postgres', { background: false });
      try {
        const acct = await t.newAccount();
        const actor = { accountId: acct.accountId, mode: 'test' as const };
        const send = () =>
          t.app.deps.changes.run(
            'sendMessage',
            { actor, input: { from: acct.testNumbers[0]!, to: '+14155550190', body: 'hi' } },
            { apiKey: sha256Hex(acct.testKey) },
          );
        // The first send opens the thread and finds the number's holder: later ones know both.
        await send();
        const peak = await peakInFlightDuring(() =>
          Promise.all(Array.from({ length: 8 }, () => send())),
        );
        // begin, the key's lookup and the eight sends; one at a time without the pipeline.
        assert.equal(peak, 10);
        const stored = await t.store.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', acct.accountId)
          .executeTakeFirstOrThrow();
        assert.equal(Number(stored.n), 9);
      } finally {
        await t.close();
      }
    });
  });
}
