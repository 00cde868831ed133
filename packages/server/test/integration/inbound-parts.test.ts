// The parts of a handset's long text wait in the database (migration 025), so a restart
// between two parts loses neither; the text comes whole exactly once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { keepInboundPart } from '../../src/store/repos/carrier-inbound-parts.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

const part = (key: string, seq: number, total: number, receivedAt = 1_000) => ({
  text_key: key,
  seq,
  total,
  part_json: `${key}#${seq}`,
  received_at: receivedAt,
});

for (const engine of ENGINES) {
  describe(`parts of inbound texts (${engine})`, () => {
    let database: TestDatabase;
    let store: Store;
    const keep = (row: ReturnType<typeof part>, staleBefore = 0) =>
      store.write((tx) => keepInboundPart(tx.db, row, staleBefore));
    const kept = () =>
      store.db.selectFrom('carrier_inbound_parts').select(['text_key', 'seq']).execute();

    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
    });
    after(async () => {
      await store?.close();
      await database?.drop();
    });

    test('a text is whole only when every part has come, in order, whatever order they came in', async () => {
      assert.equal(await keep(part('car_a/t1', 3, 3)), null);
      assert.equal(await keep(part('car_a/t1', 1, 3)), null);
      const whole = await keep(part('car_a/t1', 2, 3));
      assert.deepEqual(
        whole?.map((p) => p.part_json),
        ['car_a/t1#1', 'car_a/t1#2', 'car_a/t1#3'],
      );
      assert.deepEqual(await kept(), [], 'a whole text leaves no parts behind');
    });

    test('a part delivered twice counts once, and parts of other texts stay apart', async () => {
      assert.equal(await keep(part('car_a/t2', 1, 2)), null);
      assert.equal(await keep(part('car_a/t2', 1, 2)), null);
      assert.equal(await keep(part('car_b/t2', 2, 2)), null);
      assert.equal((await keep(part('car_a/t2', 2, 2)))?.length, 2);
      assert.deepEqual(await kept(), [{ text_key: 'car_b/t2', seq: 2 }]);
      assert.equal((await keep(part('car_b/t2', 1, 2)))?.length, 2);
    });

    test('parts older than the limit are forgotten, so their text never completes', async () => {
      assert.equal(await keep(part('car_a/t3', 1, 2, 1_000)), null);
      const late = await keep(part('car_a/t3', 2, 2, 90_000), 50_000);
      assert.equal(late, null);
      assert.deepEqual(await kept(), [{ text_key: 'car_a/t3', seq: 2 }]);
    });
  });
}
