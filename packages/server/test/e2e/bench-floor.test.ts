// The bench's floor (bench/floor-server.ts) stores what a one-to-one send stores, through the
// store's own functions on the migrated schema: if they change, the floor changes with them
// or fails here, rather than measuring writes the service no longer does.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFloor, type Running } from '../../bench/lib/processes.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

for (const engine of ENGINES) {
  describe(`the bench floor [${engine}]`, () => {
    let database: TestDatabase;
    let floor: Running;
    /** A store of the same storage, opened once the floor has migrated it, for reading. */
    let store: Store;

    before(async () => {
      database = await createTestDatabase(engine);
      floor = await startFloor(database.options.dataDir, database.options.databaseUrl);
      store = await openStore(database.options);
    });
    after(async () => {
      await store.close();
      await floor.stop();
      await database.drop();
    });

    const post = (body: unknown) =>
      fetch(`${floor.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    /** The floor's rows of a message, read after its 201. */
    function storedSend(id: string) {
      return store.db
        .selectFrom('messages as m')
        .innerJoin('message_recipients as r', 'r.message_id', 'm.id')
        .innerJoin('conversations as c', 'c.id', 'm.conversation_id')
        .select(['m.body', 'm.status', 'r.phone', 'r.run_at', 'c.peer_phone', 'c.last_message_at'])
        .where('m.id', '=', id)
        .executeTakeFirst();
    }

    test('a send is answered 201 after its message, recipient and conversation are committed', async () => {
      const sends = await Promise.all(
        [7, 8, 9].map((n) =>
          post({
            from: '+15005550100',
            to: `+141555600${n.toString().padStart(2, '0')}`,
            body: `Your code is ${n}`,
          }),
        ),
      );
      for (const [i, res] of sends.entries()) {
        assert.equal(res.status, 201);
        const message = (await res.json()) as { id: string; status: string; to: string };
        assert.equal(message.status, 'queued');
        const row = await storedSend(message.id);
        assert.ok(row, 'the message is stored with its recipient in its conversation');
        assert.equal(row.body, `Your code is ${7 + i}`);
        assert.equal(row.phone, message.to);
        assert.equal(row.peer_phone, message.to);
        // Moved up the inbox by this send, and due at the carrier now.
        assert.equal(Number(row.last_message_at), Number(row.run_at));
      }
    });

    test('a send from a number other than the bench load’s is refused with 422', async () => {
      const res = await post({ from: '+15005550199', to: '+14155560007', body: 'x' });
      assert.equal(res.status, 422);
    });
  });
}
