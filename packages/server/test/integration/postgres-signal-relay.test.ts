// Committed signals between processes sharing a PostgreSQL database (LISTEN/NOTIFY):
// how a batch's signals are packed into notifications, sent in one statement, and heard.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  LISTENER_NAME,
  listenForSignals,
  newOrigin,
  NOTIFY_QUERY,
  notifyPayloads,
  SIGNAL_CHANNEL,
} from '../../src/store/engine/postgres-signal-relay.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

/** Waits, boundedly (5 s), until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await sleep(10);
}

describe('signal payloads', () => {
  const origin = newOrigin();

  test('a batch of signals is one notification while it fits: the origin, a space, the signals in order', () => {
    const payloads = notifyPayloads(origin, [
      { topic: 'a', payload: { n: 1 } },
      { topic: 'b', payload: { n: 2 } },
    ]);
    assert.deepEqual(payloads, [`${origin} [["a",{"n":1}],["b",{"n":2}]]`]);
  });

  test('a wake-up equal to the last of its topic in the batch is left out; one after another of its topic is kept', () => {
    const payloads = notifyPayloads(origin, [
      { topic: 'outbound.queued', payload: { mode: 'test' } },
      { topic: 'message.created', payload: { id: 'msg_1' } },
      { topic: 'outbound.queued', payload: { mode: 'test' } },
      { topic: 'message.created', payload: { id: 'msg_2' } },
      { topic: 'outbound.queued', payload: { mode: 'live' } },
      { topic: 'outbound.queued', payload: { mode: 'test' } },
    ]);
    assert.deepEqual(payloads, [
      `${origin} [["outbound.queued",{"mode":"test"}],["message.created",{"id":"msg_1"}],["message.created",{"id":"msg_2"}],["outbound.queued",{"mode":"live"}],["outbound.queued",{"mode":"test"}]]`,
    ]);
  });

  test('a signal that says how something is now is relayed every time: a thread read, made unread, and read again', () => {
    const read = { topic: 'conversation.read', payload: { conversationId: 'cnv_1' } };
    const inbound = { topic: 'message.created', payload: { id: 'msg_1', conversationId: 'cnv_1' } };
    const payloads = notifyPayloads(origin, [read, inbound, read]);
    assert.deepEqual(payloads, [
      `${origin} ${JSON.stringify([read, inbound, read].map((s) => [s.topic, s.payload]))}`,
    ]);
  });

  test('signals beyond one notification’s size go on in the next, in order; each stays under 8000 bytes', () => {
    const signals = Array.from({ length: 40 }, (_, i) => ({
      topic: 'message.created',
      payload: { i, body: 'é'.repeat(300) },
    }));
    const payloads = notifyPayloads(origin, signals);
    assert.ok(payloads.length > 1);
    for (const payload of payloads) assert.ok(Buffer.byteLength(payload) < 8000);
    const heard = payloads.flatMap(
      (p) => JSON.parse(p.slice(origin.length + 1)) as [string, { i: number }][],
    );
    assert.deepEqual(
      heard.map(([, { i }]) => i),
      signals.map((s) => s.payload.i),
    );
  });

  test('a signal too large for any notification is left out, and none is made of nothing', () => {
    const payloads = notifyPayloads(origin, [
      { topic: 'huge', payload: 'x'.repeat(8000) },
      { topic: 'small', payload: 1 },
    ]);
    assert.deepEqual(payloads, [`${origin} [["small",1]]`]);
    assert.deepEqual(notifyPayloads(origin, []), []);
  });
});

if (ENGINES.includes('postgres')) {
  describe('signals between processes on PostgreSQL', () => {
    let database: TestDatabase;
    let sender: pg.Client;

    before(async () => {
      database = await createTestDatabase('postgres');
      sender = new pg.Client({ connectionString: database.options.databaseUrl! });
      await sender.connect();
    });
    after(async () => {
      await sender.end();
      await database.drop();
    });

    test('a listener hears other processes’ signals, in the order sent, and passes over its own unread', async () => {
      const mine = newOrigin();
      const heard: [string, unknown][] = [];
      const errors: unknown[] = [];
      const relay = listenForSignals(
        database.options.databaseUrl!,
        mine,
        (topic, payload) => heard.push([topic, payload]),
        (error) => errors.push(error),
      );
      try {
        // The relay's LISTEN runs after it connects: it listens once it hears a probe.
        const probe = newOrigin();
        for (let i = 0; i < 100 && heard.length === 0; i++) {
          await sender.query(`select pg_notify('${SIGNAL_CHANNEL}', $1)`, [
            `${probe} [["probe",${i}]]`,
          ]);
          await sleep(20);
        }
        assert.ok(heard.length > 0, 'the relay listens');
        heard.length = 0;

        const other = newOrigin();
        const payloads = [
          // Its own, and not JSON after the origin: read, it would be an error.
          `${mine} not a list of signals`,
          ...notifyPayloads(other, [
            { topic: 'first', payload: { n: 1 } },
            { topic: 'second', payload: { text: `it's "quoted" \\ and 📞` } },
          ]),
          ...notifyPayloads(other, [{ topic: 'third', payload: null }]),
        ];
        await sender.query({ ...NOTIFY_QUERY, values: [payloads] });
        await until(() => heard.length >= 3);
        assert.deepEqual(heard, [
          ['first', { n: 1 }],
          ['second', { text: `it's "quoted" \\ and 📞` }],
          ['third', null],
        ]);
        assert.deepEqual(errors, []);
      } finally {
        await relay.close();
      }
    });
  });

  describe('whether another instance listens, on PostgreSQL', () => {
    let database: TestDatabase;
    const relays: { close(): Promise<void> }[] = [];
    /** A listener on the test's database, closed after the test. */
    const listener = (presencePollMs: number, url = database.options.databaseUrl!) => {
      const relay = listenForSignals(
        url,
        newOrigin(),
        () => {},
        () => {},
        { presencePollMs },
      );
      relays.push(relay);
      return relay;
    };

    /** Runs one statement on a connection of its own to the test's database. */
    const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
      const client = new pg.Client({ connectionString: database.options.databaseUrl! });
      await client.connect();
      try {
        return (await client.query<R>(text, values)).rows;
      } finally {
        await client.end();
      }
    };

    /** A listener that has looked and found itself alone (it looks every `presencePollMs`). */
    const aloneListener = async (presencePollMs: number) => {
      const relay = listener(presencePollMs);
      await until(() => !relay.othersListening());
      assert.equal(relay.othersListening(), false);
      return relay;
    };

    before(async () => {
      database = await createTestDatabase('postgres');
    });
    afterEach(async () => {
      await Promise.all(relays.splice(0).map((relay) => relay.close()));
    });
    after(() => database.drop());

    test('a listener assumes others listen until it has looked, and finds none when it is alone', async () => {
      const alone = listener(60_000);
      assert.equal(alone.othersListening(), true);
      await until(() => !alone.othersListening());
      assert.equal(alone.othersListening(), false);
    });

    test('an instance that starts announces itself: one alone relays again at once, not a poll later', async () => {
      // It looks once as it starts, then not again for a minute.
      const first = await aloneListener(60_000);
      listener(60_000);
      await until(() => first.othersListening());
      assert.equal(first.othersListening(), true);
    });

    test("another instance's listening connection is found by its name, and relaying stops a poll after it leaves", async () => {
      const relay = await aloneListener(30);
      // A listening connection that never announced itself: only the poll can find it.
      const silent = new pg.Client({
        connectionString: database.options.databaseUrl!,
        application_name: LISTENER_NAME,
      });
      await silent.connect();
      try {
        await until(() => relay.othersListening());
        assert.equal(relay.othersListening(), true);
      } finally {
        await silent.end();
      }
      await until(() => !relay.othersListening());
      assert.equal(relay.othersListening(), false);
    });

    test('a listener names its connection even where the connection string names it otherwise, and says when it listens', async () => {
      const url = new URL(database.options.databaseUrl!);
      url.searchParams.set('application_name', 'monitoring');
      await listener(60_000, url.toString()).listening;
      const rows = await query<{ n: string }>(
        `select count(*) as n from pg_stat_activity
          where datname = current_database() and application_name = $1`,
        [LISTENER_NAME],
      );
      assert.equal(Number(rows[0]!.n), 1);
    });

    test('a listener whose connection is lost relays until it is back and has looked again', async () => {
      const relay = await aloneListener(60_000);
      await query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and application_name = $1`,
        [LISTENER_NAME],
      );
      await until(() => relay.othersListening());
      assert.equal(relay.othersListening(), true, 'relays while its connection is lost');
      // It reconnects a second later, announces itself and looks again.
      await until(() => !relay.othersListening());
      assert.equal(relay.othersListening(), false);
    });

    test('a notification from a process that does not listen (a command) makes a listener relay until its next look', async () => {
      const relay = await aloneListener(60_000);
      // A command's notification, as its store sends it.
      await query(NOTIFY_QUERY.text, [[`${newOrigin()} [["contact.created",{}]]`]]);
      await until(() => relay.othersListening());
      assert.equal(relay.othersListening(), true);
    });
  });
}
