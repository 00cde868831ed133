import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Carrier, DeliveryReceipt, ReceiptOutcome } from '../../src/carriers/carrier.ts';
import { sandboxCarrier } from '../../src/carriers/sandbox/sandbox-carrier.ts';
import { SANDBOX_MAGIC_NUMBERS } from '../../src/domain/sandbox-timeline.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { insertAccount } from '../../src/store/repos/accounts.ts';
import { insertMessage, insertRecipients } from '../../src/store/repos/messages.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { gate } from '../support/gate.ts';
import { waitFor } from '../support/messaging.ts';
import { outboundMessageRow } from '../support/rows.ts';

const T0 = Date.UTC(2026, 0, 1);
const ACCOUNT = 'acct_sandbox_carrier';

for (const engine of ENGINES) {
  describe(`sandbox carrier: what it owes survives restarts and stopped instances (${engine})`, () => {
    let database: TestDatabase;
    let store: Store;
    let carrier: Carrier | null = null;
    let now = T0;
    let reported: string[] = [];
    let messageSeq = 0;

    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
      await store.write((tx) =>
        insertAccount(tx.db, { id: ACCOUNT, name: 'Sandbox', help_reply: null, created_at: T0 }),
      );
    });
    afterEach(async () => {
      await carrier?.stop();
      carrier = null;
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    /** Starts a sandbox carrier on a clock the test moves, recording what it reports. */
    async function startCarrier(delayMs: number, startAt: number): Promise<Carrier> {
      now = startAt;
      reported = [];
      carrier = sandboxCarrier({
        store,
        clock: { now: () => now },
        delayMs,
        logger: createLogger('silent'),
      });
      await carrier.start({
        receipts: async (receipts: readonly DeliveryReceipt[]) => {
          reported.push(...receipts.map((r) => `${r.carrierRef}:${r.status}`));
          return receipts.map((): ReceiptOutcome => 'applied');
        },
        inbound: async () => {},
        inboundPart: async () => {},
      });
      return carrier;
    }

    /** A one-to-one message whose recipient is as a carrier left it. */
    async function recipientInState(
      phone: string,
      status: 'queued' | 'sent' | 'delivered',
      carrierRef: string | null,
      updatedAt: number,
    ): Promise<void> {
      const id = `msg_sbx_${engine}_${messageSeq++}`;
      const message = outboundMessageRow(
        { id, account_id: ACCOUNT, status, created_at: updatedAt },
        phone,
      );
      await store.write(async (tx) => {
        await insertMessage(tx.db, message);
        await insertRecipients(tx.db, [
          {
            message_id: id,
            phone,
            status,
            failure_reason: null,
            carrier_ref: carrierRef,
            updated_at: updatedAt,
            run_at: null,
            attempts: 1,
            last_error: null,
          },
        ]);
      });
    }

    /** Lets the carrier's loop run a few rounds of real time (it polls every second). */
    const rounds = () => sleep(1300);
    /** What was reported for references containing `tag` (earlier tests' rows are in flight too). */
    const reportedFor = (tag: string) => reported.filter((r) => r.includes(tag));
    const until = (what: string, tag: string, count: number) =>
      waitFor(async () => (reportedFor(tag).length >= count ? true : undefined), what);

    test('after a restart, each in-flight recipient is owed the rest of its timeline, counted from its last change', async () => {
      const at = T0;
      await recipientInState('+15550001001', 'queued', 'sbx_restart_a', at); // taken: sent, then delivered
      await recipientInState('+15550001002', 'sent', 'sbx_restart_b', at); // sent: delivered
      await recipientInState(SANDBOX_MAGIC_NUMBERS.neverDelivered, 'sent', 'sbx_restart_c', at);
      await recipientInState('+15550001004', 'delivered', 'sbx_restart_d', at); // settled
      await recipientInState('+15550001005', 'queued', 'smpp_restart_e', at); // another carrier's
      await recipientInState('+15550001006', 'queued', null, at); // not taken yet

      await startCarrier(100, at + 150);
      await until('the due receipts', 'restart', 2);
      await rounds();
      assert.deepEqual(reportedFor('restart').sort(), [
        'sbx_restart_a:sent',
        'sbx_restart_b:delivered',
      ]);
      now = at + 250;
      await until('the receipt due later', 'restart', 3);
      await rounds();
      assert.deepEqual(reportedFor('restart').sort(), [
        'sbx_restart_a:delivered',
        'sbx_restart_a:sent',
        'sbx_restart_b:delivered',
      ]);
    });

    test('a receipt another instance owed and never reported is reported once it is overdue by the grace', async () => {
      const start = T0 + 3_600_000;
      await startCarrier(100, start);
      await rounds(); // the first scan, before the other instance's recipient exists
      await recipientInState('+15550002001', 'queued', 'sbx_orphan_a', start + 10);
      now = start + 10 + 100 + 5_000; // due, but not yet overdue by the grace
      await rounds();
      assert.deepEqual(reportedFor('orphan'), [], 'another instance may still report it');
      now = start + 10 + 100 + 10_000 + 5_000;
      await until('the orphaned receipts', 'orphan', 2);
      assert.deepEqual(reportedFor('orphan'), ['sbx_orphan_a:sent', 'sbx_orphan_a:delivered']);
      now += 30_000;
      await rounds();
      assert.equal(reportedFor('orphan').length, 2, 'reported once, not at every scan');
    });

    test('a receipt this instance still owes is not reported again when a scan passes over its recipient', async () => {
      const start = T0 + 7_200_000;
      const delay = 30_000;
      const sandbox = await startCarrier(delay, start);
      await rounds(); // the first scan
      const { carrierRef } = await sandbox.submit({
        messageId: 'msg_held',
        accountId: ACCOUNT,
        mode: 'test',
        from: '+15550000000',
        to: '+15550003001',
        body: 'held',
        mediaUrls: [],
        segments: 1,
      });
      // Recorded, and last changed long enough ago to look overdue to a scan.
      await recipientInState('+15550003001', 'queued', carrierRef, start - 45_000);
      now = start + 6_000; // the next scan covers changes before start - 34 s
      await rounds();
      assert.deepEqual(reportedFor(carrierRef), [], 'owed here already, and not due yet');
      now = start + delay;
      await until('the sent receipt', carrierRef, 1);
      now = start + 2 * delay;
      await until('the delivered receipt', carrierRef, 2);
      await rounds();
      assert.deepEqual(reportedFor(carrierRef), [`${carrierRef}:sent`, `${carrierRef}:delivered`]);
    });

    test('a submission waits while over 2000 receipts are overdue, until the rounds catch up or a second has passed', async () => {
      const at = T0 + 12_000_000;
      let clockNow = at;
      const stuck = gate();
      let roundsEntered = 0;
      const sandbox = sandboxCarrier({
        store,
        clock: { now: () => clockNow },
        delayMs: 100,
        logger: createLogger('silent'),
      });
      await sandbox.start({
        receipts: async (receipts: readonly DeliveryReceipt[]) => {
          roundsEntered++;
          await stuck.opened;
          return receipts.map((): ReceiptOutcome => 'applied');
        },
        inbound: async () => {},
        inboundPart: async () => {},
      });
      let seq = 0;
      const submit = () =>
        sandbox.submit({
          messageId: `msg_room_${seq}`,
          accountId: ACCOUNT,
          mode: 'test',
          from: '+15550000000',
          to: `+1555001${String(seq++).padStart(4, '0')}`,
          body: 'room',
          mediaUrls: [],
          segments: 1,
        });
      /** Resolves to how long `promise` took, or null if it is still pending after `ms`. */
      const settlesWithin = async (promise: Promise<unknown>, ms: number) => {
        const started = performance.now();
        const settled = await Promise.race([promise.then(() => true), sleep(ms).then(() => false)]);
        return settled ? performance.now() - started : null;
      };
      try {
        // 1250 messages owe 2500 receipts; a second later all are due, and a round is stuck.
        await Promise.all(Array.from({ length: 1250 }, submit));
        clockNow = at + 1_000;
        await waitFor(async () => (roundsEntered > 0 ? true : undefined), 'a stuck round');

        const whileStuck = submit();
        assert.equal(await settlesWithin(whileStuck, 300), null, 'waits for room');
        const waited = await settlesWithin(whileStuck, 5_000);
        assert.ok(waited !== null, 'a stuck round does not stop submissions for good');

        const beforeCatchUp = submit();
        assert.equal(await settlesWithin(beforeCatchUp, 100), null, 'still no room');
        stuck.open();
        const caughtUp = await settlesWithin(beforeCatchUp, 5_000);
        assert.ok(caughtUp !== null && caughtUp < 700, `released by the rounds: ${caughtUp} ms`);
        assert.ok(roundsEntered >= 2, 'released once a round after the stuck one has reported');
        assert.notEqual(await settlesWithin(submit(), 100), null, 'room again: no wait');
      } finally {
        stuck.open();
        await sandbox.stop();
      }
    });

    test('a round reports up to 500 receipts when no request is about, and 50 among requests', async () => {
      /**
       * How many of its receipts each round reported, with the writer's request load at
       * `load` (rounds also carry receipts earlier tests left in flight; they are not counted).
       */
      async function batchSizes(load: number): Promise<number[]> {
        const sizes: number[] = [];
        const ours = new Set<string>();
        const loaded: Store = { ...store, requestLoad: () => load, close: store.close };
        Object.defineProperty(loaded, 'db', { get: () => store.db });
        const sandbox = sandboxCarrier({
          store: loaded,
          clock: { now: () => T0 + 9_000_000 },
          delayMs: 0,
          logger: createLogger('silent'),
        });
        await sandbox.start({
          receipts: async (receipts: readonly DeliveryReceipt[]) => {
            sizes.push(receipts.filter((r) => ours.has(r.carrierRef)).length);
            return receipts.map((): ReceiptOutcome => 'applied');
          },
          inbound: async () => {},
          inboundPart: async () => {},
        });
        // All owed in one turn, before the carrier's first round.
        const submitted = await Promise.all(
          Array.from({ length: 120 }, (_, i) =>
            sandbox.submit({
              messageId: `msg_round_${load}_${i}`,
              accountId: ACCOUNT,
              mode: 'test',
              from: '+15550000000',
              to: `+1555000${String(4000 + i)}`,
              body: 'round',
              mediaUrls: [],
              segments: 1,
            }),
          ),
        );
        for (const { carrierRef } of submitted) ours.add(carrierRef);
        await waitFor(
          async () => (sizes.reduce((a, b) => a + b, 0) >= 240 ? true : undefined),
          'every receipt',
        );
        await sandbox.stop();
        return sizes;
      }
      assert.equal((await batchSizes(0))[0], 240, 'one round for all of them');
      const among = (await batchSizes(0.6)).filter((size) => size > 0);
      assert.ok(
        among.every((size) => size <= 50) && among.length >= 5,
        `small rounds: ${among.join(', ')}`,
      );
    });
  });
}
