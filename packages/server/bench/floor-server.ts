// The bench's floor: what Switchboard's own writes for a send cost with nothing around them.
// The reference server's shape (lib/bare-send-server.ts: bare node:http, one thread, group
// commit with synchronous=FULL, 201 after the commit), but each request is stored as a
// one-to-one send is: Switchboard's schema (its migrations), its rows (outboundRows) and store
// functions for the send (the opt-out check, the message, its recipient, the conversation
// moved up the inbox) and the API key read once per batch, in a conversation found in memory
// as the server's memo does. No framework, authentication, validation, second thread, events
// nor carrier. Where the floor itself is far below the reference, the rest of the service
// cannot close the gap (docs/benchmarks.md, "The floor"). SQLite only.
//   node floor-server.ts PORT DATA_DIR
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { outboundRows } from '../src/commands/send-message.ts';
import { newId } from '../src/lib/ids.ts';
import { sha256Hex } from '../src/lib/secrets.ts';
import { presentMessage } from '../src/presenters/message.ts';
import { sqliteKysely } from '../src/store/dialects/sqlite.ts';
import { findApiKeyByHash } from '../src/store/repos/api-keys.ts';
import { insertConversationIfAbsent } from '../src/store/repos/conversations.ts';
import type { MessageRow, RecipientRow } from '../src/store/repos/messages.ts';
import { storeOneToOneUnlessOptedOut } from '../src/store/repos/outbound-messages.ts';
import type { DB } from '../src/store/schema.ts';
import { openStore } from '../src/store/store.ts';
import { serveBareSends } from './lib/bare-send-server.ts';

const [port = '0', dataDir = '.'] = process.argv.slice(2);
const ACTOR = { accountId: 'acc_floor', mode: 'test' } as const;
/** The number the bench's POST load sends from to the reference and to the floor. */
const FROM = '+15005550100';
/** post.lua's recipients: +1415556XXXX, 1000 of them. */
const PEERS = 1000;

// The schema as the service has it, then one connection as the reference has one.
await (await openStore({ dataDir, databaseUrl: null, durability: 'full' })).close();
const connection = new DatabaseSync(join(dataDir, 'switchboard.db'));
connection.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
const db = sqliteKysely<DB>(connection);
const keyHash = sha256Hex('sb_test_floor');

/** Each recipient's conversation, opened before the load as the service's first sends would. */
const conversations = new Map<string, string>();
connection.exec('BEGIN IMMEDIATE');
for (let i = 0; i < PEERS; i++) {
  const peer = `+1415556${String(i).padStart(4, '0')}`;
  const now = Date.now();
  const id = newId('cnv', now);
  await insertConversationIfAbsent(db, {
    id,
    account_id: ACTOR.accountId,
    mode: ACTOR.mode,
    kind: 'direct',
    account_phone: FROM,
    peer_phone: peer,
    created_at: now,
    last_message_at: now,
    unread_count: 0,
  });
  conversations.set(peer, id);
}
connection.exec('COMMIT');

interface Send {
  message: MessageRow;
  recipient: RecipientRow;
}

serveBareSends<Send>(Number(port), {
  accept(input) {
    const conversationId = typeof input.to === 'string' ? conversations.get(input.to) : undefined;
    if (input.from !== FROM || typeof input.body !== 'string' || !conversationId) return 422;
    const now = Date.now();
    // The rows of a one-to-one send, as sendMessage builds them.
    const { row, recipientRows } = outboundRows({
      id: newId('msg', now),
      now,
      actor: ACTOR,
      conversationId,
      from: FROM,
      recipients: [input.to as string],
      isGroup: false,
      body: input.body,
      mediaUrls: [],
      segments: 1,
      senderName: null,
    });
    return { message: row, recipient: recipientRows[0]! };
  },
  async commit(batch) {
    connection.exec('BEGIN IMMEDIATE');
    try {
      await findApiKeyByHash(db, keyHash);
      for (const { message, recipient } of batch) {
        await storeOneToOneUnlessOptedOut(db, message, recipient);
      }
      connection.exec('COMMIT');
    } catch (error) {
      if (connection.isTransaction) connection.exec('ROLLBACK');
      throw error;
    }
  },
  present: ({ message, recipient }) => presentMessage(message, [recipient]),
});
