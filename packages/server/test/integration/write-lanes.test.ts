import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore, type Store } from '../../src/store/store.ts';
import type { WriteLane } from '../../src/store/engine/write-queue.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { gate } from '../support/gate.ts';

for (const engine of ENGINES) {
  describe(`write lanes (${engine})`, () => {
    let database: TestDatabase;
    let store: Store;

    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    const pairs: [held: WriteLane, other: WriteLane][] = [
      ['carrier', 'request'],
      ['carrier', 'webhooks'],
    ];
    for (const [heldLane, otherLane] of pairs) {
      test(
        engine === 'postgres'
          ? `a ${otherLane} unit commits while a ${heldLane} batch is still open (its own connection)`
          : `with one writer, a ${otherLane} unit waits for the ${heldLane} batch before it`,
        async () => {
          const id = `acct_lanes_${otherLane}`;
          const held = gate();
          let heldDone = false;
          const heldBatch = store
            .write(async () => held.opened, { lane: heldLane })
            .then(() => (heldDone = true));
          // Let the held batch start and block inside its transaction.
          await sleep(20);
          const other = store.write(
            async (tx) => {
              await tx.db
                .insertInto('accounts')
                .values({ id, name: 'Lanes', created_at: Date.now() })
                .execute();
              return 'committed';
            },
            { lane: otherLane },
          );
          const first = await Promise.race([other, sleep(1000).then(() => 'still waiting')]);
          const heldEndedFirst = heldDone;
          held.open();
          await heldBatch;
          if (engine === 'postgres') {
            assert.equal(first, 'committed');
            assert.equal(heldEndedFirst, false, `answered before the ${heldLane} batch ended`);
          } else {
            assert.equal(first, 'still waiting');
            assert.equal(await other, 'committed');
          }
          const row = await store.db
            .selectFrom('accounts')
            .select('name')
            .where('id', '=', id)
            .executeTakeFirst();
          assert.equal(row?.name, 'Lanes');
        },
      );
    }
  });
}
