// Seeding straight through the store: a million messages over HTTP would take longer than
// the whole bench. Multi-row inserts of 1000 rows, 20 000 messages per transaction.
import { newId } from '../../src/lib/ids.ts';
import { recordEvent } from '../../src/commands/record-event.ts';
import type { Mode } from '../../src/domain/modes.ts';
import type { ConversationRow } from '../../src/store/repos/conversations.ts';
import type { MessageRow, RecipientRow } from '../../src/store/repos/messages.ts';
import type { Store } from '../../src/store/store.ts';

const ROWS_PER_STATEMENT = 1000;
const MESSAGES_PER_TRANSACTION = 20_000;
/** Ids kept for the GET load: a uniform sample is enough to spread reads over the table. */
const SAMPLE = 100_000;

/** Who the seeded messages belong to. */
export interface SeedScope {
  accountId: string;
  mode: Mode;
  from: string;
}

/** Opens one direct conversation per peer (+1 415 777 0000 onwards) for the seeded messages. */
export async function seedConversations(
  store: Store,
  scope: SeedScope,
  peers = 1000,
): Promise<ConversationRow[]> {
  const now = Date.now();
  const rows: ConversationRow[] = Array.from({ length: peers }, (_, i) => ({
    id: newId('cv', now),
    account_id: scope.accountId,
    mode: scope.mode,
    kind: 'direct',
    account_phone: scope.from,
    peer_phone: `+1415777${String(i).padStart(4, '0')}`,
    created_at: now,
    last_message_at: now,
    unread_count: 0,
  }));
  await store.write(async (tx) => {
    await tx.db.insertInto('conversations').values(rows).execute();
    await tx.db
      .insertInto('conversation_participants')
      .values(
        rows.map((c) => ({
          conversation_id: c.id,
          phone: c.peer_phone!,
          active: 1,
          added_at: now,
        })),
      )
      .execute();
  });
  return rows;
}

/**
 * Inserts `count` delivered one-to-one outbound messages (message and recipient
 * rows, as a send leaves them) spread over the conversations, and returns a
 * sample of their ids.
 */
export async function seedMessages(
  store: Store,
  scope: SeedScope,
  threads: ConversationRow[],
  count: number,
): Promise<string[]> {
  const sample: string[] = [];
  const every = Math.max(1, Math.floor(count / SAMPLE));
  const start = Date.now() - count;
  for (let done = 0; done < count; done += MESSAGES_PER_TRANSACTION) {
    const n = Math.min(MESSAGES_PER_TRANSACTION, count - done);
    const messages: MessageRow[] = [];
    const recipients: RecipientRow[] = [];
    for (let i = 0; i < n; i++) {
      const at = start + done + i;
      const thread = threads[(done + i) % threads.length]!;
      const id = newId('msg', at);
      if ((done + i) % every === 0) sample.push(id);
      messages.push({
        id,
        account_id: scope.accountId,
        mode: scope.mode,
        conversation_id: thread.id,
        direction: 'outbound',
        from_phone: scope.from,
        to_json: JSON.stringify(thread.peer_phone),
        is_group: 0,
        body: `Seeded message ${done + i}: your appointment is confirmed.`,
        media_json: '[]',
        segments: 1,
        status: 'delivered',
        failure_reason: null,
        sender_name: null,
        contact_id: null,
        auto_reply: 0,
        created_at: at,
        updated_at: at,
      });
      recipients.push({
        message_id: id,
        phone: thread.peer_phone!,
        status: 'delivered',
        failure_reason: null,
        carrier_ref: null,
        updated_at: at,
        run_at: null,
        attempts: 1,
        last_error: null,
      });
    }
    await store.write(async (tx) => {
      for (let i = 0; i < n; i += ROWS_PER_STATEMENT) {
        await tx.db
          .insertInto('messages')
          .values(messages.slice(i, i + ROWS_PER_STATEMENT))
          .execute();
        await tx.db
          .insertInto('message_recipients')
          .values(recipients.slice(i, i + ROWS_PER_STATEMENT))
          .execute();
      }
    });
  }
  return sample;
}

/**
 * Records `count` `message.received` events through the real outbox code
 * (`recordEvent`), which fans each out to every subscribed endpoint in the same
 * transaction, as an inbound text would.
 */
export async function seedEvents(store: Store, scope: SeedScope, count: number): Promise<void> {
  const actor = { accountId: scope.accountId, mode: scope.mode };
  for (let done = 0; done < count; done += 2000) {
    await store.write(async (tx) => {
      for (let i = done; i < Math.min(count, done + 2000); i++) {
        const data = {
          id: newId('msg'),
          object: 'message',
          body: `Inbound ${i}`,
          status: 'received',
        };
        await recordEvent(tx, actor, 'message.received', data, Date.now());
      }
    });
  }
}
