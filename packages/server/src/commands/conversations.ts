import { newId } from '../lib/ids.ts';
import {
  createDirectConversation,
  findDirectConversation,
  insertConversationIfAbsent,
  upsertParticipants,
  type ConversationRow,
} from '../store/repos/conversations.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { Actor } from './context.ts';
import { scoped } from '../store/scope.ts';

/**
 * The direct thread between an account number and another number, created on
 * first use. Concurrent first messages agree on one thread: the insert yields
 * to an existing row and the thread is read back.
 *
 * A thread is never deleted nor given other numbers, so which one it is is
 * remembered once committed (`tx.memo`): a send to a known number skips the
 * lookup. The row then carries its counters (`last_message_at`,
 * `unread_count`) as they were when it was found; callers use only which
 * thread it is.
 */
export async function findOrCreateDirectConversation(
  tx: WriteTx,
  actor: Actor,
  accountPhone: string,
  peerPhone: string,
  now: number,
): Promise<ConversationRow> {
  const memoKey = `direct-conversation:${actor.accountId}:${actor.mode}:${accountPhone}:${peerPhone}`;
  const known = tx.memo.get(memoKey) as ConversationRow | undefined;
  if (known) return known;
  const remember = (row: ConversationRow) => tx.afterCommit(() => tx.memo.set(memoKey, row));
  const existing = await findDirectConversation(scoped(tx.db, actor), accountPhone, peerPhone);
  if (existing) {
    remember(existing);
    return existing;
  }
  // Where a concurrent first message opened the thread first, this one reads it.
  const conversation =
    (await createDirectConversation(tx.db, {
      id: newId('cv', now),
      account_id: actor.accountId,
      mode: actor.mode,
      kind: 'direct',
      account_phone: accountPhone,
      peer_phone: peerPhone,
      created_at: now,
      last_message_at: now,
      unread_count: 0,
    })) ?? (await findDirectConversation(scoped(tx.db, actor), accountPhone, peerPhone));
  if (!conversation) throw new Error('direct conversation vanished after insert');
  remember(conversation);
  return conversation;
}

/** Opens a new group conversation with these participants. */
export async function createGroupConversation(
  tx: WriteTx,
  actor: Actor,
  accountPhone: string,
  participants: string[],
  now: number,
): Promise<ConversationRow> {
  const row: ConversationRow = {
    id: newId('cv', now),
    account_id: actor.accountId,
    mode: actor.mode,
    kind: 'group',
    account_phone: accountPhone,
    peer_phone: null,
    created_at: now,
    last_message_at: now,
    unread_count: 0,
  };
  await insertConversationIfAbsent(tx.db, row);
  await upsertParticipants(tx.db, row.id, participants, now);
  return row;
}
