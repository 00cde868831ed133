// Committed signals between processes sharing a PostgreSQL database (LISTEN/NOTIFY):
// how a batch's signals are packed into notifications, sent in one statement, and heard.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  listenForSignals,
  newOrigin,
  NOTIFY_QUERY,
  notifyPayloads,
  SIGNAL_CHANNEL,
} from '../../src/store/dialects/postgres-signal-relay.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

/** Waits, boundedly, until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await sleep(10);
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
}
