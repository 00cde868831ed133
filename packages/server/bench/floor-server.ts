// The bench's floor: what Switchboard's own writes for a send cost with nothing around them.
// The reference server's shape (lib/bare-send-server.ts: bare node:http, one thread, 201
// after a durable group commit), but each request is stored as a one-to-one send is:
// Switchboard's schema (its migrations), its rows (outboundRows) and store functions for the
// send (the opt-out check, the message, its recipient, the conversation moved up the inbox)
// and the API key read once per batch, in a conversation found in memory as the server's
// memo does. No framework, authentication, validation, second thread, events nor carrier.
// Where the floor itself is far below the reference, the rest of the service cannot close
// the gap (docs/benchmarks.md, "The floor").
//
// SQLite: one connection committing with synchronous=FULL on the event loop, as the
// reference's. PostgreSQL: Switchboard's own write queue on its request lane, which
// pipelines a batch's statements and its commit (a bare client would wait a round trip
// for each statement, and measure that instead).
//   node floor-server.ts PORT DATA_DIR [postgres://…]
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { confirmApiKey } from '../src/commands/authenticate-api-key.ts';
import { presentMessage } from '../src/presenters/message.ts';
import { sqliteKysely } from '../src/store/engine/sqlite.ts';
import { findApiKeyByHash } from '../src/store/repos/api-keys.ts';
import { storeOneToOneUnlessOptedOut } from '../src/store/repos/outbound-messages.ts';
import type { DB } from '../src/store/schema.ts';
import { openStore } from '../src/store/store.ts';
import type { WriteTx } from '../src/store/engine/write-queue.ts';
import { serveBareSends } from './lib/bare-send-server.ts';
import { FROM, KEY_HASH, openConversations, sendRows, type Send } from './lib/one-to-one-sends.ts';

const [port = '0', dataDir = '.', databaseUrl] = process.argv.slice(2);

/** Where the floor stores: how its conversations are opened and a batch is committed. */
interface FloorStorage {
  conversations: Map<string, string>;
  commit(batch: Send[]): Promise<void>;
  /** The storage groups sends itself (see BareSendServer.groupsItself). */
  groupsItself: boolean;
}

/** SQLite: the schema as the service has it, then one connection as the reference has one. */
async function sqliteFloor(): Promise<FloorStorage> {
  await (await openStore({ dataDir, databaseUrl: null, durability: 'full' })).close();
  const connection = new DatabaseSync(join(dataDir, 'switchboard.db'));
  connection.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
  const db = sqliteKysely<DB>(connection);
  connection.exec('BEGIN IMMEDIATE');
  const conversations = await openConversations(db);
  connection.exec('COMMIT');
  return {
    conversations,
    groupsItself: false,
    async commit(batch) {
      connection.exec('BEGIN IMMEDIATE');
      try {
        await findApiKeyByHash(db, KEY_HASH);
        for (const { message, recipient } of batch) {
          await storeOneToOneUnlessOptedOut(db, message, recipient);
        }
        connection.exec('COMMIT');
      } catch (error) {
        if (connection.isTransaction) connection.exec('ROLLBACK');
        throw error;
      }
    },
  };
}

/** PostgreSQL: Switchboard's store, each send a unit of its request lane's write queue. */
async function postgresFloor(url: string): Promise<FloorStorage> {
  const store = await openStore({ dataDir, databaseUrl: url });
  const conversations = await store.write((tx) => openConversations(tx.db));
  // The key is confirmed as a command's is (once per batch), its lookup sent alongside the
  // send's statement as runConfirmed sends them.
  const storeSend = async (tx: WriteTx, { message, recipient }: Send) => {
    await Promise.all([
      confirmApiKey(tx, KEY_HASH),
      storeOneToOneUnlessOptedOut(tx.db, message, recipient, () => tx.sentAll()),
    ]);
  };
  return {
    conversations,
    groupsItself: true,
    commit: async (sends) => {
      await Promise.all(sends.map((send) => store.write((tx) => storeSend(tx, send))));
    },
  };
}

const storage = databaseUrl ? await postgresFloor(databaseUrl) : await sqliteFloor();

serveBareSends<Send>(Number(port), {
  accept(input) {
    const conversationId =
      typeof input.to === 'string' ? storage.conversations.get(input.to) : undefined;
    if (input.from !== FROM || typeof input.body !== 'string' || !conversationId) return 422;
    return sendRows(conversationId, input.to as string, input.body);
  },
  commit: storage.commit,
  groupsItself: storage.groupsItself,
  present: ({ message, recipient }) => presentMessage(message, [recipient]),
});
