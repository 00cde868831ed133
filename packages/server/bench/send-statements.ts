// `node packages/server/bench/send-statements.ts [--sends 60000] [--batch 32] [--rounds 3]`
// Where the floor's time goes (docs/benchmarks.md, "The floor"): what storing a one-to-one
// send costs on SQLite, with no server around it, against the reference's two inserts. Each
// variant stores `--sends` sends in batches of `--batch` per transaction on a fresh database
// of the service's schema (its migrations), with 1000 conversations as the POST load's, on
// one connection that checkpoints after its commits as the reference's and the floor's do,
// at synchronous=NORMAL: the fsync each batch shares is the same for every variant, and
// left out. The variants take turns, `--rounds` times; the table gives each one's median.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { sqliteKysely } from '../src/store/engine/sqlite.ts';
import { findApiKeyByHash } from '../src/store/repos/api-keys.ts';
import { insertMessage, insertRecipients } from '../src/store/repos/messages.ts';
import { optedOutAmong } from '../src/store/repos/opt-outs.ts';
import { storeOneToOneUnlessOptedOut } from '../src/store/repos/outbound-messages.ts';
import type { DB } from '../src/store/schema.ts';
import { openStore } from '../src/store/store.ts';
import { FROM, KEY_HASH, openConversations, peer, sendRows } from './lib/one-to-one-sends.ts';
import { median } from './lib/summary.ts';
import { openSqliteReference, referenceId } from './lib/reference-store.ts';
import { scoped } from '../src/store/scope.ts';

const { values } = parseArgs({
  options: {
    sends: { type: 'string', default: '60000' },
    batch: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
  },
});
const SENDS = Number(values.sends);
const BATCH = Number(values.batch);
const ROUNDS = Number(values.rounds);

/** A variant: prepares a fresh database in `dir`, then stores batches of sends there. */
interface Variant {
  name: string;
  open(dir: string): Promise<Batches>;
}

/** Stores sends `first` to `first + count - 1` in one transaction on `connection`. */
interface Batches {
  connection: DatabaseSync;
  batch(first: number, count: number): Promise<void>;
}

/** The service's schema with the conversations of the load, on one writing connection. */
async function serviceDatabase(dir: string, dropThreadIndex = false) {
  await (await openStore({ dataDir: dir, databaseUrl: null, durability: 'normal' })).close();
  const connection = new DatabaseSync(join(dir, 'switchboard.db'));
  connection.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  if (dropThreadIndex) connection.exec('DROP INDEX messages_conversation');
  const db = sqliteKysely<DB>(connection);
  connection.exec('BEGIN IMMEDIATE');
  const conversations = await openConversations(db);
  connection.exec('COMMIT');
  /** The rows of send number `i`. */
  const rowsOf = (i: number) => sendRows(conversations.get(peer(i))!, peer(i), `Your code is ${i}`);
  return { connection, db, rowsOf };
}

/** Runs `send` for each send of a batch in one transaction, after the key's lookup. */
function batches(
  connection: DatabaseSync,
  db: Kysely<DB>,
  send: (i: number) => Promise<void> | void,
): Batches {
  return {
    connection,
    async batch(first: number, count: number) {
      connection.exec('BEGIN IMMEDIATE');
      await findApiKeyByHash(db, KEY_HASH);
      for (let i = first; i < first + count; i++) await send(i);
      connection.exec('COMMIT');
    },
  };
}

/** Sends stored as the floor stores them, on the schema with or without the thread index. */
async function floorSends(dir: string, dropThreadIndex: boolean): Promise<Batches> {
  const { connection, db, rowsOf } = await serviceDatabase(dir, dropThreadIndex);
  return batches(connection, db, async (i) => {
    const { message, recipient } = rowsOf(i);
    await storeOneToOneUnlessOptedOut(db, message, recipient);
  });
}

const variants: Variant[] = [
  {
    name: "the reference's two inserts",
    async open(dir) {
      const reference = openSqliteReference(join(dir, 'reference.db'), 'NORMAL');
      return {
        connection: reference.db,
        async batch(first, count) {
          const now = Date.now();
          reference.store(
            Array.from({ length: count }, (_, j) => ({
              id: referenceId('msg', now),
              from: FROM,
              to: peer(first + j),
              body: `Your code is ${first + j}`,
              createdAt: now,
            })),
          );
        },
      };
    },
  },
  {
    name: 'a send, as the floor stores it',
    open: (dir) => floorSends(dir, false),
  },
  {
    name: '… without the thread index (messages_conversation)',
    open: (dir) => floorSends(dir, true),
  },
  {
    name: '… without moving the conversation up the inbox',
    async open(dir) {
      const { connection, db, rowsOf } = await serviceDatabase(dir);
      return batches(connection, db, async (i) => {
        const { message, recipient } = rowsOf(i);
        await optedOutAmong(scoped(db, { accountId: message.account_id, mode: message.mode }), [
          recipient.phone,
        ]);
        await insertMessage(db, message);
        await insertRecipients(db, [recipient]);
      });
    },
  },
  {
    name: '… the same statements on node:sqlite directly (no Kysely, no adapter)',
    async open(dir) {
      const { connection, db, rowsOf } = await serviceDatabase(dir);
      // The SQL Kysely compiles for each statement of the floor's send, prepared once.
      const sample = rowsOf(0);
      const prepare = (query: { compile(): { sql: string } }) =>
        connection.prepare(query.compile().sql);
      const key = prepare(db.selectFrom('api_keys').selectAll().where('key_hash', '=', ''));
      const optOut = prepare(
        db
          .selectFrom('opt_outs')
          .select('phone')
          .where('account_id', '=', '')
          .where('mode', '=', 'test')
          .where('phone', '=', ''),
      );
      const message = prepare(db.insertInto('messages').values(sample.message));
      const recipient = prepare(db.insertInto('message_recipients').values(sample.recipient));
      const touch = prepare(
        db.updateTable('conversations').set({ last_message_at: 0 }).where('id', '=', ''),
      );
      type Bindable = string | number | null;
      return {
        connection,
        async batch(first, count) {
          connection.exec('BEGIN IMMEDIATE');
          key.all(KEY_HASH);
          for (let i = first; i < first + count; i++) {
            const send = rowsOf(i);
            optOut.all(send.message.account_id, send.message.mode, send.recipient.phone);
            message.run(...(Object.values(send.message) as Bindable[]));
            recipient.run(...(Object.values(send.recipient) as Bindable[]));
            touch.run(send.message.created_at, send.message.conversation_id);
          }
          connection.exec('COMMIT');
        },
      };
    },
  },
];

const results = new Map<string, number[]>(variants.map((v) => [v.name, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const variant of variants) {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-statements-'));
    try {
      const run = await variant.open(dir);
      const started = process.hrtime.bigint();
      for (let first = 0; first < SENDS; first += BATCH) {
        await run.batch(first, Math.min(BATCH, SENDS - first));
      }
      const us = Number(process.hrtime.bigint() - started) / 1000 / SENDS;
      results.get(variant.name)!.push(us);
      run.connection.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

process.stdout.write(
  `\n${SENDS} sends in batches of ${BATCH}, ${ROUNDS} rounds (median, and each round)\n\n` +
    '| stored per send | µs per send | rounds |\n|---|---:|---|\n',
);
for (const [name, us] of results) {
  process.stdout.write(
    `| ${name} | ${median(us).toFixed(1)} | ${us.map((u) => u.toFixed(1)).join(', ')} |\n`,
  );
}
