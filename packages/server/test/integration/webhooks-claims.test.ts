// How often the delivery worker claims. A claim walks the due deliveries of every
// endpoint it may take; one that can find nothing new is work for nothing, and under
// a backlog it ran at the end of every attempt.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SETTLEMENT } from '../../src/delivery/settle-attempt.ts';
import { createGuardedDispatcher } from '../../src/delivery/guarded-dispatcher.ts';
import { WebhookWorker } from '../../src/delivery/webhook-worker.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createSecretBox } from '../../src/lib/secret-box.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import type { WriteOptions } from '../../src/store/engine/write-queue.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import {
  accountWithEndpoints,
  isClaim,
  watchedWrites,
  webhookDeps,
} from '../support/webhook-worker.ts';

/** Time stands still unless the test moves it, so no hold lapses by itself. */
class StillClock implements Clock {
  #now = Date.UTC(2030, 0, 1, 9, 0, 0);
  now(): number {
    return this.#now;
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}

/** Waits (bounded) until `check` holds. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await sleep(25);
  }
  assert.fail(`timed out waiting for ${what}`);
}

for (const engine of ENGINES) {
  describe(`webhook claims [${engine}]`, () => {
    let database: TestDatabase;
    let store: Store;
    let receiver: Receiver;
    const secrets = createSecretBox(randomBytes(32));
    const dispatcher = createGuardedDispatcher({ allowPrivate: true });

    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
      receiver = await startReceiver();
    });
    after(async () => {
      await dispatcher.close();
      await store.close();
      await database.drop();
      await receiver.close();
    });

    /**
     * An account with one endpoint on `path` for contact.created, and a worker on a
     * still clock taking `perEndpoint` attempts at a time (one by default), whose claims
     * are counted; `onClaim` runs as each claim is submitted.
     */
    async function scenario(path: string, onClaim?: (claims: number) => void, perEndpoint = 1) {
      const clock = new StillClock();
      const {
        endpoints: [endpoint],
        contact,
      } = await accountWithEndpoints(store, webhookDeps(clock, secrets), path, [
        `${receiver.url}${path}`,
      ]);
      const settled = async (count: number) => {
        const rows = await store.db
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('endpoint_id', '=', endpoint!.id)
          .where('status', '=', 'succeeded')
          .execute();
        return rows.length === count;
      };
      let claims = 0;
      /** The options of every write the worker asked for, in order. */
      const asked: (WriteOptions | undefined)[] = [];
      const counted = watchedWrites(store, (options) => {
        asked.push(options);
        if (!isClaim(options)) return;
        claims++;
        onClaim?.(claims);
      });
      const worker = new WebhookWorker({
        store: counted,
        clock,
        logger: createLogger('silent'),
        secrets,
        dispatcher,
        // One at a time by default: each attempt's end is a round's chance to claim.
        perEndpoint,
      });
      return { clock, contact, settled, worker, claims: () => claims, asked, endpoint: endpoint! };
    }

    test('a delivery whose endpoint was disabled after it was recorded is failed without waiting for the disk, as any settlement', async () => {
      const { contact, worker, asked, endpoint } = await scenario('/claims/disabled');
      await contact('+14155550190');
      await store.write((tx) =>
        tx.db
          .updateTable('webhook_endpoints')
          .set({ enabled: 0 })
          .where('id', '=', endpoint.id)
          .execute(),
      );
      assert.equal(await worker.runOnce(), 1);
      const [delivery] = await store.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpoint.id)
        .execute();
      assert.deepEqual([delivery?.status, delivery?.last_error], ['failed', 'endpoint_disabled']);
      assert.deepEqual(
        asked.map((options) => options?.durable),
        [false, false],
        'the claim, then the settlement',
      );
      assert.equal(asked[1], SETTLEMENT);
      await worker.stop();
    });

    test('once a claim comes back short, rounds claim nothing more until a new delivery is signalled or a poll interval has passed', async () => {
      const { clock, contact, settled, worker, claims } = await scenario('/claims');
      try {
        await contact('+14155550161');
        await contact('+14155550162');
        await contact('+14155550163');
        worker.start();
        await until(() => settled(3), 'three deliveries');
        // The first claim took all three and came back short of its 64: the ends of the
        // three attempts, and the idle polls since, had nothing to claim.
        await sleep(150);
        assert.equal(claims(), 1);

        // A new event's signal ends the hold.
        await contact('+14155550164');
        await until(() => settled(4), 'the fourth delivery');
        assert.equal(claims(), 2);

        // Half a poll interval later, the rounds still hold back: a claim in a backlog walks
        // every pending delivery of the busy endpoints to find nothing.
        clock.advance(500);
        await sleep(250);
        assert.equal(claims(), 2);

        // A whole poll interval ends the hold: a retry or a lapsed lease may have fallen
        // due meanwhile.
        clock.advance(500);
        await until(async () => claims() === 3, 'a claim after the hold');
      } finally {
        await worker.stop();
      }
      assert.equal(receiver.at('/claims').length, 4);
    });

    test('an idle worker claims a retry when it falls due, even within the hold of a short claim', async () => {
      const { clock, contact, settled, worker, claims } = await scenario('/claims-retry');
      try {
        await contact('+14155550191');
        worker.start();
        await until(() => settled(1), 'the first delivery');
        // After the hold, a claim finds nothing due and the worker reads when the next
        // delivery falls due: a retry 300 ms on, written without a signal.
        const retry = await store.db
          .selectFrom('webhook_deliveries')
          .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
          .select('webhook_deliveries.id')
          .where('webhook_endpoints.url', 'like', '%/claims-retry')
          .executeTakeFirstOrThrow();
        await store.write((tx) =>
          tx.db
            .updateTable('webhook_deliveries')
            .set({ status: 'pending', next_attempt_at: clock.now() + 1300, locked_until: 0 })
            .where('id', '=', retry.id)
            .execute(),
        );
        clock.advance(1000);
        await until(async () => claims() === 2, 'the claim after the hold');
        // That claim came back short and holds for a poll interval; its round read the
        // retry's time, which ends the hold.
        await sleep(100);
        clock.advance(300);
        await until(() => settled(1), 'the retry delivered');
        assert.equal(receiver.at('/claims-retry').length, 2);
      } finally {
        await worker.stop();
      }
    });

    test('an event whose envelope cannot be written holds up only its own delivery, not the rest of its claim', async () => {
      const { contact, settled, worker } = await scenario('/bad-envelope');
      try {
        await contact('+14155550181');
        await contact('+14155550182');
        await contact('+14155550183');
        // A time no Date can hold: writing the envelope's createdAt throws. (Every other
        // test's deliveries have settled: the pending ones are this test's.)
        const broken = await store.db
          .selectFrom('webhook_deliveries')
          .select('event_id')
          .where('status', '=', 'pending')
          .orderBy('id')
          .executeTakeFirstOrThrow();
        await store.write((tx) =>
          tx.db
            .updateTable('events')
            .set({ created_at: 9e15 })
            .where('id', '=', broken.event_id)
            .execute(),
        );
        worker.start();
        await until(() => settled(2), 'the two other deliveries');
      } finally {
        await worker.stop();
      }
      assert.equal(receiver.at('/bad-envelope').length, 2);
    });

    test('an endpoint running low on claimed deliveries is claimed for again while its attempts are still in flight', async () => {
      // A claim takes 64. The first 62 attempts are answered at once; the last two of the
      // claim are held, filling the endpoint's two slots with nothing left waiting.
      const HELD_MS = 3000;
      receiver.on('/claims-ahead', (_request, index) =>
        index === 62 || index === 63 ? { delayMs: HELD_MS } : {},
      );
      const { contact, settled, worker } = await scenario('/claims-ahead', undefined, 2);
      // Deliveries claimed (leased) whose attempt has not begun: the receiver has not seen them.
      const claimedAhead = async () => {
        const rows = await store.db
          .selectFrom('webhook_deliveries')
          .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
          .select('webhook_deliveries.event_id')
          .where('webhook_endpoints.url', 'like', '%/claims-ahead')
          .where('webhook_deliveries.status', '=', 'pending')
          .where('webhook_deliveries.locked_until', '>', 0)
          .execute();
        const attempted = new Set(receiver.at('/claims-ahead').map((r) => r.headers['webhook-id']));
        return rows.filter((row) => !attempted.has(row.event_id)).length;
      };
      try {
        for (let i = 0; i < 66; i++) await contact(`+141555502${String(i).padStart(2, '0')}`);
        worker.start();
        await receiver.waitFor('/claims-ahead', 64);
        const heldAt = Date.now();
        // The two left over were claimed as the queue ran low, not once a held attempt is
        // answered.
        for (let i = 0; i < 40 && (await claimedAhead()) < 2; i++) await sleep(25);
        assert.equal(await claimedAhead(), 2);
        assert.ok(Date.now() - heldAt < HELD_MS, 'checked while both held attempts were in flight');
        await until(() => settled(66), 'all 66 deliveries');
      } finally {
        await worker.stop();
      }
      assert.equal(receiver.at('/claims-ahead').length, 66);
    });

    test('a delivery signalled while a claim runs is claimed, not held back by that claim', async () => {
      let added: Promise<unknown> | null = null;
      const { contact, settled, worker } = await scenario('/claims-raced', (claims) => {
        // Committed in the same batch as the first claim, after it: that claim misses it.
        if (claims === 1) added = contact('+14155550172');
      });
      try {
        await contact('+14155550171');
        worker.start();
        await until(async () => added !== null && (await settled(2)), 'both deliveries');
      } finally {
        await worker.stop();
      }
    });
  });
}
