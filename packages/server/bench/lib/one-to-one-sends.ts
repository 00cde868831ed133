// One-to-one sends as the bench's floor (floor-server.ts) and send-statements.ts store them:
// the POST load's sender and recipients (wrk/post.lua), their conversations, and each
// send's rows as sendMessage builds them.
import type { Kysely } from 'kysely';
import { outboundRows } from '../../src/commands/send-message.ts';
import { newId } from '../../src/lib/ids.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { insertAccount } from '../../src/store/repos/accounts.ts';
import { insertApiKey } from '../../src/store/repos/api-keys.ts';
import { insertConversationIfAbsent } from '../../src/store/repos/conversations.ts';
import type { MessageRow, RecipientRow } from '../../src/store/repos/messages.ts';
import type { DB } from '../../src/store/schema.ts';

const ACTOR = { accountId: 'acc_floor', mode: 'test' } as const;
/** The hash of the account's API key, which each batch looks up as the service's do. */
export const KEY_HASH = sha256Hex('sb_test_floor');
/** The number the bench's POST load sends from to the reference and to the floor. */
export const FROM = '+15005550100';
/** post.lua's recipients: +1415556XXXX, 1000 of them. */
const PEERS = 1000;
export const peer = (i: number): string => `+1415556${String(i % PEERS).padStart(4, '0')}`;

/** A one-to-one send's rows. */
export interface Send {
  message: MessageRow;
  recipient: RecipientRow;
}

/**
 * Creates the sending account with its API key, and opens each recipient's conversation,
 * as the service's first sends to them would; returns their ids by recipient.
 */
export async function openConversations(db: Kysely<DB>): Promise<Map<string, string>> {
  const created = Date.now();
  await insertAccount(db, {
    id: ACTOR.accountId,
    name: 'Floor',
    help_reply: null,
    created_at: created,
  });
  await insertApiKey(db, {
    id: 'key_floor',
    account_id: ACTOR.accountId,
    mode: ACTOR.mode,
    key_hash: KEY_HASH,
    last4: 'loor',
    created_at: created,
    last_used_at: null,
    revoked_at: null,
  });
  const conversations = new Map<string, string>();
  for (let i = 0; i < PEERS; i++) {
    const now = Date.now();
    const id = newId('cnv', now);
    await insertConversationIfAbsent(db, {
      id,
      account_id: ACTOR.accountId,
      mode: ACTOR.mode,
      kind: 'direct',
      account_phone: FROM,
      peer_phone: peer(i),
      created_at: now,
      last_message_at: now,
      unread_count: 0,
    });
    conversations.set(peer(i), id);
  }
  return conversations;
}

/** The rows of a send of `body` to `to` in its conversation, as sendMessage builds them. */
export function sendRows(conversationId: string, to: string, body: string): Send {
  const now = Date.now();
  const { row, recipientRows } = outboundRows({
    id: newId('msg', now),
    now,
    actor: ACTOR,
    conversationId,
    from: FROM,
    recipients: [to],
    isGroup: false,
    body,
    mediaUrls: [],
    segments: 1,
    senderName: null,
  });
  return { message: row, recipient: recipientRows[0]! };
}
