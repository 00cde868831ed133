import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyDeliveryReceipts } from '../../src/commands/apply-delivery-receipts.ts';
import { transitionRecipient } from '../../src/commands/transition-recipient.ts';
import {
  insertMessage,
  insertRecipients,
  listRecipients,
  type RecipientRow,
} from '../../src/store/repos/messages.ts';
import { insertAccount } from '../../src/store/repos/accounts.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { gate } from '../support/gate.ts';
import { outboundMessageRow, recipientRow } from '../support/rows.ts';

const NOW = Date.UTC(2026, 0, 1);
const ACCOUNT = 'acct_transitions';
const deps = { clock: { now: () => NOW } };

for (const engine of ENGINES) {
  describe(`recipient transitions (${engine})`, () => {
    let database: TestDatabase;
    let store: Store;

    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
      await store.write((tx) =>
        insertAccount(tx.db, {
          id: ACCOUNT,
          name: 'Transitions',
          help_reply: null,
          created_at: NOW,
        }),
      );
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    /** A sent message to `phones` (a group if more than one), every recipient `sent`. */
    async function sentGroup(id: string, phones: string[]): Promise<RecipientRow[]> {
      const message = outboundMessageRow(
        { id, account_id: ACCOUNT, status: 'sent', created_at: NOW, conversation_id: `conv_${id}` },
        phones,
      );
      const recipients = phones.map((phone) => ({
        message_id: id,
        phone,
        status: 'sent' as const,
        failure_reason: null,
        carrier_ref: null,
        updated_at: NOW,
        run_at: null,
        attempts: 1,
        last_error: null,
      }));
      await store.write(async (tx) => {
        await insertMessage(tx.db, message);
        await insertRecipients(tx.db, recipients);
      });
      return recipients;
    }

    async function statusOf(id: string) {
      const { status, failure_reason } = await store.db
        .selectFrom('messages')
        .select(['status', 'failure_reason'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return { status, failure_reason };
    }

    test('receipts of two participants committing at once leave the overall status of both', async () => {
      const [first, second] = await sentGroup('msg_concurrent', ['+15550000001', '+15550000002']);
      // The first receipt holds its transaction open after its transition; the second
      // commits meanwhile on another lane (its own connection on PostgreSQL), as another
      // instance sharing the database would.
      const transitioned = gate();
      const release = gate();
      const delivered = store.write(
        async (tx) => {
          await transitionRecipient(tx, first!, 'delivered', null, deps);
          transitioned.open();
          await release.opened;
        },
        { lane: 'request' },
      );
      await transitioned.opened;
      const failed = store.write(
        (tx) => transitionRecipient(tx, second!, 'failed', 'carrier_rejected', deps),
        { lane: 'carrier' },
      );
      // Long enough for the second to commit first if nothing orders it after the first.
      await sleep(150);
      release.open();
      await Promise.all([delivered, failed]);

      const recipients = await listRecipients(store.db, 'msg_concurrent');
      assert.deepEqual(
        recipients.map((r) => r.status),
        ['delivered', 'failed'],
      );
      // The least advanced participant that has not failed is delivered.
      assert.deepEqual(await statusOf('msg_concurrent'), {
        status: 'delivered',
        failure_reason: null,
      });
    });

    test('a receipt read before another transition of the same participant is judged by the row as it is now', async () => {
      const [only] = await sentGroup('msg_stale', ['+15550000003', '+15550000004']);
      // Delivered first, then a late failure report carrying the row as read before.
      assert.notEqual(
        await store.write((tx) => transitionRecipient(tx, only!, 'delivered', null, deps)),
        null,
      );
      assert.equal(
        await store.write((tx) =>
          transitionRecipient(tx, only!, 'failed', 'carrier_rejected', deps),
        ),
        null,
      );
      const recipients = await listRecipients(store.db, 'msg_stale');
      assert.equal(recipients.find((r) => r.phone === only!.phone)?.status, 'delivered');
    });

    test('a one-to-one receipt read before another transition of its recipient is judged by the row as it is now', async () => {
      const [only] = await sentGroup('msg_stale_direct', ['+15550000005']);
      assert.notEqual(
        await store.write((tx) => transitionRecipient(tx, only!, 'delivered', null, deps)),
        null,
      );
      // The caller's row still says `sent`: the failure must not overwrite `delivered`.
      assert.equal(
        await store.write((tx) =>
          transitionRecipient(tx, only!, 'failed', 'carrier_rejected', deps),
        ),
        null,
      );
      const [row] = await listRecipients(store.db, 'msg_stale_direct');
      assert.equal(row?.status, 'delivered');
      assert.deepEqual(await statusOf('msg_stale_direct'), {
        status: 'delivered',
        failure_reason: null,
      });
    });

    test('a sent reported with its delivered in one batch is applied as the delivered: one write, both applied', async () => {
      const id = 'msg_receipts_together';
      const message = outboundMessageRow(
        { id, account_id: ACCOUNT, status: 'queued', created_at: NOW, conversation_id: `cv_${id}` },
        '+15550000006',
      );
      await store.write(async (tx) => {
        await insertMessage(tx.db, message);
        await insertRecipients(tx.db, [
          recipientRow(id, '+15550000006', { status: 'queued', carrier_ref: 'sbx_together' }),
        ]);
      });
      const updates: string[] = [];
      const onUpdate = (payload: { message: { id: string; status: string } }) => {
        if (payload.message.id === id) updates.push(payload.message.status);
      };
      store.signals.on('message.updated', onUpdate);
      try {
        const outcomes = await store.write((tx) =>
          applyDeliveryReceipts(
            tx,
            [
              { carrierRef: 'sbx_together', status: 'sent', failureReason: null },
              { carrierRef: 'sbx_other_unknown', status: 'sent', failureReason: null },
              { carrierRef: 'sbx_together', status: 'delivered', failureReason: null },
              { carrierRef: 'sbx_together', status: 'delivered', failureReason: null },
            ],
            deps,
          ),
        );
        assert.deepEqual(outcomes, ['applied', 'unknown', 'applied', 'ignored']);
      } finally {
        store.signals.off('message.updated', onUpdate);
      }
      assert.deepEqual(updates, ['delivered'], 'queued to delivered in one step');
      assert.deepEqual(await statusOf(id), { status: 'delivered', failure_reason: null });
    });
  });
}
