import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Carrier, Submission } from '../../src/carriers/carrier.ts';
import { sendMessage } from '../../src/commands/send-message.ts';
import { ApiError } from '../../src/domain/errors.ts';
import type { Mode } from '../../src/domain/modes.ts';
import {
  decideRecipient,
  type PolicyStage,
  type RecipientDecision,
} from '../../src/domain/recipient-policy.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { addOptOut } from '../../src/store/repos/opt-outs.ts';
import { MessageDispatcher } from '../../src/workers/message-dispatcher.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { phoneNumbers, waitFor } from '../support/messaging.ts';

/** Where the recipient's number stands on the opt-out lists. */
type Listed = 'nowhere' | 'this account and mode' | 'the other mode' | 'another account';

interface Case {
  stage: PolicyStage;
  listed: Listed;
  autoReply: boolean;
  group: boolean;
}

const CASES: Case[] = [];
for (const stage of ['accept', 'dispatch'] as const)
  for (const listed of [
    'nowhere',
    'this account and mode',
    'the other mode',
    'another account',
  ] as const)
    for (const autoReply of [false, true])
      for (const group of [false, true]) CASES.push({ stage, listed, autoReply, group });

const describeCase = (c: Case) =>
  `${c.stage}, listed in ${c.listed}, ${c.autoReply ? 'auto-reply' : 'ordinary'}, ${c.group ? 'group' : 'one-to-one'}`;

/** A carrier that takes everything and remembers what it took. */
function recordingCarrier(): Carrier & { taken: Submission[] } {
  const taken: Submission[] = [];
  return {
    name: 'recording',
    window: 10,
    taken,
    start: async () => {},
    stop: async () => {},
    submit: async (submission) => {
      taken.push(submission);
      return { carrierRef: `ref-${taken.length}` };
    },
  };
}

// The send command and the dispatcher read the opt-out facts with engine-specific SQL
// (one round trip per send, one statement per dispatcher round) and ask the domain's
// recipient policy what follows. Each case runs that real path and the pure function.
for (const engine of ENGINES) {
  describe(`the opt-out paths agree with the recipient policy [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let other: TestAccount;
    const phone = phoneNumbers('415');

    before(async () => {
      t = await startTestApp(engine, { background: false });
      acct = await t.newAccount('Policy');
      other = await t.newAccount('Elsewhere');
    });
    after(() => t.close());

    async function list(listed: Listed, number: string): Promise<void> {
      if (listed === 'nowhere') return;
      const accountId = listed === 'another account' ? other.accountId : acct.accountId;
      const mode: Mode = listed === 'the other mode' ? 'live' : 'test';
      await t.store.write((tx) =>
        addOptOut(tx.db, { account_id: accountId, mode, phone: number, created_at: Date.now() }),
      );
    }

    /** Sends as the command does for this case; the refusal's error type, or the message. */
    async function send(c: Case, recipient: string) {
      const to = c.group ? [recipient, phone()] : recipient;
      const actor = { accountId: acct.accountId, mode: 'test' as const };
      const input = { from: acct.testNumbers[0]!, to, body: 'Your table is ready' };
      try {
        return await t.store.write((tx) =>
          sendMessage(
            tx,
            actor,
            input,
            { clock: { now: Date.now } },
            { bypassOptOut: c.autoReply },
          ),
        );
      } catch (error) {
        if (error instanceof ApiError) return error.type;
        throw error;
      }
    }

    async function acceptOutcome(c: Case): Promise<RecipientDecision> {
      const recipient = phone();
      await list(c.listed, recipient);
      const sent = await send(c, recipient);
      if (sent === 'recipient_opted_out') return 'refuse';
      assert.equal(typeof sent, 'object', `unexpected ${String(sent)}`);
      const message = sent as { to: string | string[] };
      const to = Array.isArray(message.to) ? message.to : [message.to];
      return to.includes(recipient) ? 'deliver' : 'drop';
    }

    async function dispatchOutcome(c: Case): Promise<RecipientDecision> {
      const recipient = phone();
      const sent = await send(c, recipient);
      assert.equal(typeof sent, 'object', `queued: ${String(sent)}`);
      const { id } = sent as { id: string };
      await list(c.listed, recipient); // the STOP arrives while the send waits in the queue
      const carrier = recordingCarrier();
      const dispatcher = new MessageDispatcher({
        store: t.store,
        carriers: { test: carrier, live: carrier },
        clock: { now: Date.now },
        logger: createLogger('silent'),
      });
      dispatcher.start();
      try {
        const row = await waitFor(async () => {
          const r = await t.store.db
            .selectFrom('message_recipients')
            .select(['status', 'failure_reason', 'carrier_ref'])
            .where('message_id', '=', id)
            .where('phone', '=', recipient)
            .executeTakeFirstOrThrow();
          return r.carrier_ref !== null || r.status === 'failed' ? r : undefined;
        }, `the dispatcher to settle ${recipient}`);
        if (row.status === 'failed') {
          assert.equal(row.failure_reason, 'opted_out');
          return 'fail';
        }
        assert.ok(carrier.taken.some((s) => s.messageId === id && s.to === recipient));
        return 'deliver';
      } finally {
        await dispatcher.stop();
      }
    }

    for (const c of CASES) {
      test(`${describeCase(c)}: the path decides as the policy does`, async () => {
        const expected = decideRecipient(c.stage, {
          optedOut: c.listed === 'this account and mode',
          autoReply: c.autoReply,
          group: c.group,
        });
        const actual = c.stage === 'accept' ? await acceptOutcome(c) : await dispatchOutcome(c);
        assert.equal(actual, expected);
      });
    }
  });
}
