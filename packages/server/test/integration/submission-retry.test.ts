import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Carrier } from '../../src/carriers/carrier.ts';
import { sendMessage } from '../../src/commands/send-message.ts';
import {
  SUBMISSION_MAX_ATTEMPTS,
  SUBMISSION_RETRY_DELAYS_MS,
} from '../../src/domain/submission-retry.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { MessageDispatcher } from '../../src/workers/message-dispatcher.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { eventsOf, waitFor } from '../support/messaging.ts';

/** A carrier whose connection is down: every submission fails transiently. */
function downCarrier(): Carrier & { attempts: number } {
  const carrier = {
    name: 'down',
    window: 10,
    attempts: 0,
    start: async () => {},
    stop: async () => {},
    submit: async () => {
      carrier.attempts++;
      throw new Error('connection refused');
    },
  };
  return carrier;
}

for (const engine of ENGINES) {
  describe(`carrier submission retries [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;

    before(async () => {
      t = await startTestApp(engine, { background: false });
      acct = await t.newAccount('Retry');
    });
    after(() => t.close());

    test('a transiently failing carrier is retried on the schedule, then the recipient fails as unreachable', async () => {
      let now = Date.UTC(2026, 0, 5, 9, 0, 0);
      const clock = { now: () => now };
      const actor = { accountId: acct.accountId, mode: 'test' as const };
      // Outside the sandbox's +1NPA55501XX range, which the account's own number is drawn from.
      const input = { from: acct.testNumbers[0]!, to: '+14155556177', body: 'Are you there?' };
      const message = await t.store.write((tx) => sendMessage(tx, actor, input, { clock }));
      const carrier = downCarrier();
      const dispatcher = new MessageDispatcher({
        store: t.store,
        carriers: { test: carrier, live: carrier },
        clock,
        logger: createLogger('silent'),
        random: () => 0.5, // no jitter: the schedule itself
      });
      const recipient = () =>
        t.store.db
          .selectFrom('message_recipients')
          .select(['status', 'failure_reason', 'run_at', 'attempts', 'last_error'])
          .where('message_id', '=', message.id)
          .executeTakeFirstOrThrow();
      dispatcher.start();
      try {
        for (let attempt = 1; attempt < SUBMISSION_MAX_ATTEMPTS; attempt++) {
          // Due exactly one scheduled wait after the failed attempt (a claim's lease aside).
          const due = now + SUBMISSION_RETRY_DELAYS_MS[attempt - 1]!;
          const row = await waitFor(async () => {
            const r = await recipient();
            return Number(r.attempts) === attempt && Number(r.run_at) === due ? r : undefined;
          }, `attempt ${attempt} to be rescheduled for ${due}`);
          assert.equal(row.status, 'queued');
          assert.equal(row.last_error, 'Error: connection refused');
          now = Number(row.run_at) - 1;
          t.store.signals.emit('outbound.queued', null);
          await new Promise((resolve) => setTimeout(resolve, 50));
          assert.equal(carrier.attempts, attempt, 'nothing is submitted before it is due');
          now += 1;
          t.store.signals.emit('outbound.queued', null);
        }
        const failed = await waitFor(async () => {
          const r = await recipient();
          return r.status === 'failed' ? r : undefined;
        }, 'the recipient to fail');
        assert.equal(failed.failure_reason, 'unreachable');
        assert.equal(carrier.attempts, SUBMISSION_MAX_ATTEMPTS);
        const events = await eventsOf(t.store.db, acct.accountId, 'test', 'message.failed');
        const event = events.find((e) => e.data.id === message.id);
        assert.equal(event?.data.failureReason, 'unreachable');
      } finally {
        await dispatcher.stop();
      }
    });
  });
}
