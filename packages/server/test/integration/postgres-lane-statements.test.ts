// The PostgreSQL write lane's work in as few statements as it can: webhook attempts, sends,
// receipts and carrier references, each a statement for a whole batch.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type Store } from '../../src/store/store.ts';
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
import { ENGINES } from '../support/engines.ts';
import { webhookEndpointRow } from '../support/rows.ts';
import { accountWithNumber, openLaneRig, type LaneRig } from '../support/lane-rig.ts';
import { queriesDuring, statementsOf } from '../support/pg-queries.ts';

if (ENGINES.includes('postgres')) {
  describe('write lanes on PostgreSQL: one statement for many', () => {
    let rig: LaneRig;
    let store: Store;
    let admin: pg.Client;
    before(async () => {
      rig = await openLaneRig();
      ({ store, admin } = rig);
    });
    after(() => rig?.close());

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
      const other = new pg.Client({ connectionString: rig.database.options.databaseUrl! });
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
  });
}
