// Retries run on the real worker against a real receiver. The app's clock is the
// wall clock plus an offset the test moves forward, so a test jumps over a retry
// wait instead of sleeping through it: the worker still decides when each attempt
// is due, and the test only makes that moment arrive sooner.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { phoneNumbers } from '../support/messaging.ts';
import { freePort } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { createEndpoint, ShiftedClock, waitForDelivery } from '../support/webhooks.ts';

const SECOND = 1000;
/** The per-attempt timeout of this file's app; the receiver's slow answers take longer. */
const TIMEOUT_MS = 500;
/** The schedule's second attempt comes 5 s after the first, ±10 % jitter. */
const CLOCK_READ_MS = 50;
// 5 s ± 10 %; the duration is rounded to the millisecond, and the clock is read just after it.
const FIRST_RETRY_MIN = 4_500 - 1;
const FIRST_RETRY_MAX = 5_500 + CLOCK_READ_MS;

for (const engine of ENGINES) {
  describe(`webhook retries [${engine}]`, () => {
    let receiver: Receiver;
    let clock: ShiftedClock;
    let t: TestApp;
    let acct: TestAccount;
    const phone = phoneNumbers('702');

    before(async () => {
      receiver = await startReceiver();
      clock = new ShiftedClock();
      t = await startTestApp(engine, {
        env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
        clock,
        webhookTimeoutMs: TIMEOUT_MS,
      });
      acct = await t.newAccount();
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    /** Wakes the worker now, as a commit would, instead of waiting for its next poll. */
    function wake(): void {
      t.store.signals.emit('webhook.pending', null);
    }

    /** An endpoint for contact.created at `url`, and a contact; returns the endpoint id. */
    async function endpointWithEvent(url: string): Promise<string> {
      const endpoint = await createEndpoint(acct.test, url, ['contact.created']);
      const res = await acct.test.post('/v1/contacts', { phone: phone() });
      assert.equal(res.status, 201);
      return endpoint.id;
    }

    /** Waits for the delivery's `n`th attempt to be logged and returns the delivery. */
    function attempts(endpointId: string, n: number): Promise<any> {
      return waitForDelivery(
        acct.test,
        endpointId,
        (d) => d.attempts.length >= n,
        `${n} attempt(s)`,
      );
    }

    /** Moves the clock to the delivery's next attempt and wakes the worker. */
    function reachNextAttempt(delivery: any): void {
      assert.ok(delivery.nextAttemptAt, `a next attempt is scheduled: ${JSON.stringify(delivery)}`);
      clock.advanceTo(Date.parse(delivery.nextAttemptAt));
      wake();
    }

    /**
     * Milliseconds from the end of the last attempt (its answer, or giving up) to the
     * next one. The worker reads its clock a moment after the attempt's measured
     * duration ends, so the wait it scheduled can show up to CLOCK_READ_MS more.
     */
    function waitAfterLastAttempt(delivery: any): number {
      const last = delivery.attempts.at(-1);
      return Date.parse(delivery.nextAttemptAt) - (Date.parse(last.attemptedAt) + last.durationMs);
    }

    test('a 500 then a 200: retried 5 s (±10 %) later with the same evt_ id and body', async () => {
      receiver.on('/flaky', (_r, i) => ({ status: i === 0 ? 500 : 200 }));
      const endpointId = await endpointWithEvent(`${receiver.url}/flaky`);
      const first = await attempts(endpointId, 1);
      assert.equal(first.status, 'pending');
      assert.equal(first.attempts[0].statusCode, 500);
      const wait = waitAfterLastAttempt(first);
      assert.ok(
        wait >= FIRST_RETRY_MIN && wait <= FIRST_RETRY_MAX,
        `second attempt ${wait} ms later`,
      );

      // Not before it is due: woken early, the worker leaves it alone.
      wake();
      await sleep(150);
      assert.equal(receiver.at('/flaky').length, 1, 'no retry before the schedule says so');

      reachNextAttempt(first);
      const [a, b] = await receiver.waitFor('/flaky', 2);
      assert.equal(b!.headers['webhook-id'], a!.headers['webhook-id']);
      assert.equal(JSON.parse(b!.text).id, first.eventId);
      assert.equal(b!.text, a!.text, 'the payload is the same bytes');
      const done = await waitForDelivery(
        acct.test,
        endpointId,
        (d) => d.status === 'succeeded',
        'success',
      );
      assert.deepEqual(
        done.attempts.map((x: any) => x.statusCode),
        [500, 200],
      );
      assert.ok(Date.parse(done.attempts[1].attemptedAt) >= Date.parse(first.nextAttemptAt));
    });

    test('an answer slower than the timeout is a failed attempt (timeout), retried with the same evt_ id', async () => {
      receiver.on('/slow', (_r, i) => (i === 0 ? { delayMs: TIMEOUT_MS * 6 } : { status: 204 }));
      const endpointId = await endpointWithEvent(`${receiver.url}/slow`);
      const first = await attempts(endpointId, 1);
      const [attempt] = first.attempts;
      assert.equal(attempt.statusCode, null);
      assert.match(attempt.error, /^timeout: /);
      assert.ok(
        attempt.durationMs >= TIMEOUT_MS - 50 && attempt.durationMs < TIMEOUT_MS * 6,
        `gave up after ${attempt.durationMs} ms`,
      );
      assert.equal(first.status, 'pending');
      const wait = waitAfterLastAttempt(first);
      assert.ok(wait >= FIRST_RETRY_MIN, `retry ${wait} ms later`);
      reachNextAttempt(first);
      const done = await waitForDelivery(
        acct.test,
        endpointId,
        (d) => d.status === 'succeeded',
        'success',
      );
      assert.deepEqual(
        done.attempts.map((x: any) => x.statusCode),
        [null, 204],
      );
      const ids = receiver.at('/slow').map((r) => r.headers['webhook-id']);
      assert.deepEqual(ids, [first.eventId, first.eventId]);
    });

    test('a refused connection is a failed attempt; once the receiver is up the retry delivers the same evt_ id', async () => {
      const port = await freePort();
      const endpointId = await endpointWithEvent(`http://127.0.0.1:${port}/later`);
      const first = await attempts(endpointId, 1);
      assert.equal(first.attempts[0].statusCode, null);
      assert.match(first.attempts[0].error, /^refused: /);
      assert.equal(first.status, 'pending');
      const late = await startReceiver({ port });
      try {
        reachNextAttempt(first);
        const [request] = await late.waitFor('/later', 1);
        assert.equal(JSON.parse(request!.text).id, first.eventId);
        const done = await waitForDelivery(
          acct.test,
          endpointId,
          (d) => d.status === 'succeeded',
          'success',
        );
        assert.equal(done.attempts.length, 2);
      } finally {
        await late.close();
      }
    });

    test('a 429 with a Retry-After longer than the schedule pushes the next attempt out that far', async () => {
      receiver.on('/busy', (_r, i) =>
        i === 0 ? { status: 429, retryAfter: '3600' } : { status: 200 },
      );
      const endpointId = await endpointWithEvent(`${receiver.url}/busy`);
      const first = await attempts(endpointId, 1);
      assert.equal(first.attempts[0].statusCode, 429);
      const wait = waitAfterLastAttempt(first);
      // The attempt's duration is rounded to the millisecond: a millisecond either way.
      assert.ok(
        wait >= 3600 * SECOND - 1 && wait <= 3600 * SECOND + 2_000,
        `next attempt ${wait} ms later`,
      );
      // Past the schedule's own 5 s, but short of the hour: still nothing.
      clock.advanceBy(FIRST_RETRY_MAX + 1000);
      wake();
      await sleep(150);
      assert.equal(receiver.at('/busy').length, 1, 'the Retry-After is honoured');
      reachNextAttempt(first);
      await receiver.waitFor('/busy', 2);
      await waitForDelivery(acct.test, endpointId, (d) => d.status === 'succeeded', 'success');
    });

    test('a 503 with a Retry-After HTTP-date pushes the next attempt out to that date', async () => {
      receiver.on('/maintenance', (_r, i) =>
        i === 0
          ? { status: 503, retryAfter: new Date(clock.now() + 2 * 3600 * SECOND).toUTCString() }
          : { status: 200 },
      );
      const endpointId = await endpointWithEvent(`${receiver.url}/maintenance`);
      const first = await attempts(endpointId, 1);
      assert.equal(first.attempts[0].statusCode, 503);
      const wait = waitAfterLastAttempt(first);
      // HTTP dates have whole seconds, so up to a second is lost to rounding.
      assert.ok(
        wait >= 2 * 3600 * SECOND - 2_000 && wait <= 2 * 3600 * SECOND + 2_000,
        `next attempt ${wait} ms later`,
      );
      await acct.test.request('DELETE', `/v1/webhook_endpoints/${endpointId}`);
    });

    test('a Retry-After shorter than the schedule does not bring the retry forward', async () => {
      receiver.on('/impatient', { status: 429, retryAfter: '1' });
      const endpointId = await endpointWithEvent(`${receiver.url}/impatient`);
      const first = await attempts(endpointId, 1);
      const wait = waitAfterLastAttempt(first);
      assert.ok(
        wait >= FIRST_RETRY_MIN && wait <= FIRST_RETRY_MAX,
        `next attempt ${wait} ms later`,
      );
      await acct.test.request('DELETE', `/v1/webhook_endpoints/${endpointId}`);
    });

    test('an attempt ends at the timeout even while its answer trickles in a byte at a time', async () => {
      // Each byte comes well within undici's idle timeouts, so only a bound on the whole
      // attempt ends it; the 2xx came in time, so the delivery succeeds.
      const body = 'x'.repeat(60);
      receiver.on('/trickle', { status: 200, body, dripMs: TIMEOUT_MS / 5 });
      const endpointId = await endpointWithEvent(`${receiver.url}/trickle`);
      const done = await attempts(endpointId, 1);
      const [attempt] = done.attempts;
      assert.equal(attempt.statusCode, 200);
      assert.ok(
        attempt.durationMs >= TIMEOUT_MS - 50 && attempt.durationMs < TIMEOUT_MS * 4,
        `ended after ${attempt.durationMs} ms; the whole answer takes ${(60 * TIMEOUT_MS) / 5} ms`,
      );
      assert.ok(
        body.startsWith(attempt.responseBodyExcerpt),
        'what came before the timeout, or nothing',
      );
      assert.equal(done.status, 'succeeded');
    });

    test('a Retry-After on a 500 is ignored: only 429 and 503 may slow the schedule', async () => {
      receiver.on('/error-with-retry-after', { status: 500, retryAfter: '3600' });
      const endpointId = await endpointWithEvent(`${receiver.url}/error-with-retry-after`);
      const first = await attempts(endpointId, 1);
      const wait = waitAfterLastAttempt(first);
      assert.ok(
        wait >= FIRST_RETRY_MIN && wait <= FIRST_RETRY_MAX,
        `next attempt ${wait} ms later`,
      );
      await acct.test.request('DELETE', `/v1/webhook_endpoints/${endpointId}`);
    });

    test('a 410 Gone disables the endpoint, fails the delivery without retry, and no further event is sent to it', async () => {
      receiver.on('/gone', { status: 410 });
      const gone = await createEndpoint(acct.test, `${receiver.url}/gone`, ['contact.created']);
      const sentinel = await createEndpoint(acct.test, `${receiver.url}/gone-sentinel`, [
        'contact.created',
      ]);
      await acct.test.post('/v1/contacts', { phone: phone() });
      const failed = await waitForDelivery(
        acct.test,
        gone.id,
        (d) => d.status === 'failed',
        'failed',
      );
      assert.deepEqual(
        failed.attempts.map((a: any) => a.statusCode),
        [410],
      );
      assert.equal(failed.nextAttemptAt, null);
      const endpoint = await acct.test.get(`/v1/webhook_endpoints/${gone.id}`);
      assert.equal(endpoint.body.enabled, false);
      assert.equal(endpoint.body.disabledReason, 'endpoint_gone_410');

      await acct.test.post('/v1/contacts', { phone: phone() });
      await receiver.waitFor('/gone-sentinel', 2);
      clock.advanceBy(10 * 60 * SECOND);
      wake();
      await waitForDelivery(acct.test, sentinel.id, (d) => d.status === 'succeeded', 'sentinel');
      await sleep(100);
      assert.equal(receiver.at('/gone').length, 1, 'nothing after the 410');
      const log = await acct.test.get(`/v1/webhook_endpoints/${gone.id}/deliveries`);
      assert.equal(log.body.data.length, 1, 'no delivery is even created for it');
    });

    for (const status of [301, 302, 307]) {
      test(`a ${status} redirect is not followed and counts as a failed attempt`, async () => {
        const path = `/moved-${status}`;
        const target = `/target-${status}`;
        receiver.on(path, { status, location: `${receiver.url}${target}` });
        const endpointId = await endpointWithEvent(`${receiver.url}${path}`);
        const first = await attempts(endpointId, 1);
        assert.equal(first.attempts[0].statusCode, status);
        assert.equal(first.status, 'pending', 'retried like any failure');
        assert.ok(first.nextAttemptAt);
        await sleep(100);
        assert.equal(receiver.at(target).length, 0, 'the redirect target receives nothing');
        assert.equal(receiver.at(path).length, 1);
        await acct.test.request('DELETE', `/v1/webhook_endpoints/${endpointId}`);
      });
    }
  });
}
