// The whole retry schedule, end to end but on a fake clock: a real store, a real
// receiver that always answers 500 and the real delivery worker, driven round by
// round with the clock moved exactly to each delivery's next attempt.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createGuardedDispatcher } from '../../src/delivery/guarded-dispatcher.ts';
import { WebhookWorker } from '../../src/delivery/webhook-worker.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createSecretBox } from '../../src/lib/secret-box.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { accountWithEndpoints, webhookDeps } from '../support/webhook-worker.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** docs/behaviour.md#retry-schedule: the wait before each retry, after the previous attempt. */
const EXPECTED_GAPS = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

/** A clock that only moves when told to. */
class FakeClock implements Clock {
  #now: number;
  constructor(start: number) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  set(at: number): void {
    assert.ok(at >= this.#now, 'the fake clock never goes back');
    this.#now = at;
  }
}

for (const engine of ENGINES) {
  describe(`the webhook retry schedule on a fake clock [${engine}]`, () => {
    let database: TestDatabase;
    let store: Store;
    let receiver: Receiver;
    const secrets = createSecretBox(randomBytes(32));
    const dispatcher = createGuardedDispatcher({ allowPrivate: true });

    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
      receiver = await startReceiver();
      receiver.on('/always-500', { status: 500, body: 'broken' });
    });
    after(async () => {
      await dispatcher.close();
      await store.close();
      await database.drop();
      await receiver.close();
    });

    /** An account, an endpoint on the always-500 path and the worker, all on `clock`. */
    async function setUp(clock: FakeClock) {
      const deps = webhookDeps(clock, secrets);
      const url = `${receiver.url}/always-500`;
      assert.deepEqual(await deps.checkUrl(url), { ok: true });
      const {
        endpoints: [endpoint],
        contact,
      } = await accountWithEndpoints(store, deps, 'Schedule', [url]);
      const worker = new WebhookWorker({
        store,
        clock,
        logger: createLogger('silent'),
        secrets,
        dispatcher,
        random: () => 0.5,
      });
      return { endpoint: endpoint!, worker, contact };
    }

    function deliveriesOf(endpointId: string) {
      return store.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .orderBy('created_at')
        .execute();
    }

    function attemptsOf(deliveryId: string) {
      return store.db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('delivery_id', '=', deliveryId)
        .orderBy('attempted_at')
        .execute();
    }

    function endpointRow(id: string) {
      return store.db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    }

    test('ten attempts at 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after the previous one, then failed', async () => {
      const start = Date.UTC(2030, 0, 1, 9, 0, 0);
      const clock = new FakeClock(start);
      const { endpoint, worker, contact } = await setUp(clock);
      await contact('+14155550150');
      const requestsBefore = receiver.at('/always-500').length;

      for (let round = 0; round < 12; round++) {
        const [delivery] = await deliveriesOf(endpoint.id);
        if (delivery!.status !== 'pending') break;
        const due = Number(delivery!.next_attempt_at);
        if (due > clock.now()) {
          // One millisecond early, the worker leaves it alone.
          clock.set(due - 1);
          assert.equal(await worker.runOnce(), 0, `round ${round}: nothing before ${due}`);
        }
        clock.set(due);
        assert.equal(await worker.runOnce(), 1, `round ${round}: one attempt when due`);
      }

      const [delivery] = await deliveriesOf(endpoint.id);
      assert.equal(delivery!.status, 'failed');
      assert.equal(delivery!.attempts, 10);
      const attempts = await attemptsOf(delivery!.id);
      const times = attempts.map((a) => Number(a.attempted_at));
      assert.equal(times.length, 10);
      assert.equal(times[0], start, 'the first attempt at once');
      const gaps = times.slice(1).map((time, i) => time - times[i]!);
      assert.deepEqual(gaps, EXPECTED_GAPS);
      assert.ok(attempts.every((a) => a.status_code === 500 && a.response_excerpt === 'broken'));

      const requests = receiver.at('/always-500').slice(requestsBefore);
      assert.equal(requests.length, 10);
      assert.equal(new Set(requests.map((r) => r.headers['webhook-id'])).size, 1, 'one evt_ id');
      assert.equal(requests[0]!.headers['webhook-id'], delivery!.event_id);
      // Each attempt is signed at its own (fake) time.
      assert.deepEqual(
        requests.map((r) => Number(r.headers['webhook-timestamp']) * 1000),
        times,
      );

      // Once failed, never again, however much time passes.
      clock.set(clock.now() + 7 * DAY);
      assert.equal(await worker.runOnce(), 0);
      assert.equal(receiver.at('/always-500').length, requestsBefore + 10);
      assert.equal((await attemptsOf(delivery!.id)).length, 10);
      assert.equal(
        (await endpointRow(endpoint.id)).enabled,
        1,
        'three days of failure is not five',
      );
    });

    test('an endpoint whose deliveries have all failed for five days is disabled', async () => {
      const start = Date.UTC(2030, 5, 1, 9, 0, 0);
      const clock = new FakeClock(start);
      const { endpoint, worker, contact } = await setUp(clock);
      await contact('+14155550151');
      assert.equal(await worker.runOnce(), 1);
      assert.equal(Number((await endpointRow(endpoint.id)).failing_since), start);

      // A minute short of five days: another failure, still enabled.
      clock.set(start + 5 * DAY - MINUTE);
      await contact('+14155550152');
      assert.ok((await worker.runOnce()) >= 1);
      assert.equal((await endpointRow(endpoint.id)).enabled, 1);

      clock.set(start + 5 * DAY);
      await contact('+14155550153');
      assert.ok((await worker.runOnce()) >= 1);
      const row = await endpointRow(endpoint.id);
      assert.equal(row.enabled, 0);
      assert.equal(row.disabled_reason, 'failing_for_5_days');

      // Pending deliveries of a disabled endpoint are failed without a request.
      const sent = receiver.at('/always-500').length;
      clock.set(clock.now() + DAY);
      await worker.runOnce();
      assert.equal(receiver.at('/always-500').length, sent);
      const left = await deliveriesOf(endpoint.id);
      assert.ok(left.every((d) => d.status === 'failed'));
    });
  });
}
