// A retry is attempted when the schedule says, on the wall clock, even while the
// worker has other attempts in flight: the worker knows when the retries it scheduled
// fall due and does not wait for its next poll to find them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createGuardedDispatcher } from '../../src/delivery/guarded-dispatcher.ts';
import { WebhookWorker } from '../../src/delivery/webhook-worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createSecretBox } from '../../src/lib/secret-box.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import {
  accountWithEndpoints,
  isClaim,
  watchedWrites,
  webhookDeps,
} from '../support/webhook-worker.ts';

/** With no jitter drawn (random() = 0), the first retry comes 5 s − 10 % after the attempt. */
const FIRST_RETRY_MS = 4_500;
/** Longer than the retry's wait: an attempt of another endpoint is in flight all along. */
const SLOW_ANSWER_MS = FIRST_RETRY_MS + 1_000;
/** The poll interval the retry must not wait for is 1 s. */
const ON_TIME_MS = 250;

for (const engine of ENGINES) {
  describe(`webhook retry timing [${engine}]`, () => {
    let database: TestDatabase;
    let store: Store;
    let receiver: Receiver;
    const secrets = createSecretBox(randomBytes(32));
    const dispatcher = createGuardedDispatcher({ allowPrivate: true });
    const clock = { now: () => Date.now() };
    const deps = webhookDeps(clock, secrets);

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

    test('a failed attempt is retried when its wait is over, while another endpoint’s attempt is still in flight', async () => {
      receiver.on('/slow', { delayMs: SLOW_ANSWER_MS });
      receiver.on('/flaky', (_request, i) => ({ status: i === 0 ? 500 : 200 }));
      const { contact } = await accountWithEndpoints(store, deps, 'retry timing', [
        `${receiver.url}/slow`,
        `${receiver.url}/flaky`,
      ]);
      await contact('+14155550177');
      const worker = new WebhookWorker({
        store,
        clock,
        logger: createLogger('silent'),
        secrets,
        dispatcher,
        random: () => 0,
      });
      try {
        worker.start();
        const [first, second] = await receiver.waitFor('/flaky', 2, {
          timeoutMs: FIRST_RETRY_MS + 3_000,
        });
        const [slow] = receiver.at('/slow');
        assert.ok(
          slow && second!.receivedAt < slow.receivedAt + SLOW_ANSWER_MS,
          'the slow attempt was still waiting for its answer',
        );
        const waited = second!.receivedAt - first!.receivedAt;
        assert.ok(
          waited >= FIRST_RETRY_MS && waited < FIRST_RETRY_MS + ON_TIME_MS,
          `retried ${waited} ms after the failed attempt, on a ${FIRST_RETRY_MS} ms schedule`,
        );
      } finally {
        await worker.stop();
      }
    });

    test('a burst of failed attempts wakes claims for their retries at most every 100 ms, not once per retry', async () => {
      receiver.on('/down', { status: 503 });
      const { contact } = await accountWithEndpoints(store, deps, 'retry burst', [
        `${receiver.url}/down`,
      ]);
      const BURST = 30;
      for (let i = 0; i < BURST; i++) await contact(`+1415555${String(2000 + i)}`);
      const claims: number[] = [];
      const counted = watchedWrites(store, (options) => {
        if (isClaim(options)) claims.push(Date.now());
      });
      // Each retry's wait a millisecond apart from the next: 4 500 ms, 4 501 ms, …
      let draws = 0;
      const worker = new WebhookWorker({
        store: counted,
        clock,
        logger: createLogger('silent'),
        secrets,
        dispatcher,
        perEndpoint: BURST,
        random: () => (draws++ % BURST) / 10_000,
      });
      try {
        worker.start();
        await receiver.waitFor('/down', BURST);
        const firstRound = Date.now();
        await receiver.waitFor('/down', 2 * BURST, { timeoutMs: FIRST_RETRY_MS + 3_000 });
        const retryClaims = claims.filter((at) => at >= firstRound + FIRST_RETRY_MS - 100);
        assert.ok(
          retryClaims.length <= 3,
          `${retryClaims.length} claims for ${BURST} retries due within 30 ms`,
        );
      } finally {
        await worker.stop();
      }
    });
  });
}
