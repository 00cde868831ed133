import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decideGroupSend,
  decideRecipient,
  optOutApplies,
} from '../../src/domain/recipient-policy.ts';

const facts = (optedOut: boolean, autoReply = false, group = false) => ({
  optedOut,
  autoReply,
  group,
});

test('a recipient who has not opted out receives the message at every stage', () => {
  for (const stage of ['accept', 'dispatch'] as const) {
    assert.equal(decideRecipient(stage, facts(false)), 'deliver');
    assert.equal(decideRecipient(stage, facts(false, false, true)), 'deliver');
  }
});

test('a one-to-one send to an opted-out number is refused as it is accepted', () => {
  assert.equal(decideRecipient('accept', facts(true)), 'refuse');
});

test('an opted-out group participant is dropped while the others receive it', () => {
  assert.equal(decideRecipient('accept', facts(true, false, true)), 'drop');
  assert.deepEqual(decideGroupSend(['+1a', '+1b', '+1c'], new Set(['+1b']), false), {
    receive: ['+1a', '+1c'],
    dropped: ['+1b'],
    refused: false,
  });
});

test('a group send whose every participant opted out is refused', () => {
  assert.equal(decideGroupSend(['+1a', '+1b'], new Set(['+1a', '+1b']), false).refused, true);
});

test('a send queued before its recipient texted STOP fails instead of leaving', () => {
  assert.equal(decideRecipient('dispatch', facts(true)), 'fail');
  assert.equal(decideRecipient('dispatch', facts(true, false, true)), 'fail');
});

test("the platform's own keyword replies always leave, opted out or not", () => {
  assert.equal(optOutApplies(true), false);
  for (const stage of ['accept', 'dispatch'] as const)
    for (const group of [false, true])
      assert.equal(decideRecipient(stage, facts(true, true, group)), 'deliver');
  assert.equal(decideGroupSend(['+1a'], new Set(['+1a']), true).refused, false);
});
