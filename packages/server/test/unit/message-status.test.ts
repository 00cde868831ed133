import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  aggregateStatus,
  canTransition,
  FAILURE_REASONS,
  isFailureReason,
  isMessageStatus,
  isTerminalStatus,
  MESSAGE_STATUSES,
  type MessageStatus,
  nextStatus,
} from '../../src/domain/message-status.ts';

const ALLOWED: readonly (readonly [MessageStatus, MessageStatus])[] = [
  ['queued', 'sent'],
  ['queued', 'delivered'],
  ['queued', 'failed'],
  ['sent', 'delivered'],
  ['sent', 'failed'],
];

const allowed = (from: MessageStatus, to: MessageStatus): boolean =>
  ALLOWED.some(([f, t]) => f === from && t === to);

describe('message statuses', () => {
  test('there are exactly four statuses, in order of progress', () => {
    assert.deepEqual([...MESSAGE_STATUSES], ['queued', 'sent', 'delivered', 'failed']);
  });

  test('isMessageStatus accepts the four statuses and rejects anything else', () => {
    for (const status of ['queued', 'sent', 'delivered', 'failed']) {
      assert.equal(isMessageStatus(status), true, status);
    }
    for (const value of ['undelivered', 'QUEUED', '', null, undefined, 1]) {
      assert.equal(isMessageStatus(value), false, String(value));
    }
  });

  test('delivered and failed are terminal; queued and sent are not', () => {
    assert.equal(isTerminalStatus('delivered'), true);
    assert.equal(isTerminalStatus('failed'), true);
    assert.equal(isTerminalStatus('queued'), false);
    assert.equal(isTerminalStatus('sent'), false);
  });
});

describe('status transitions', () => {
  test('queued moves to sent, delivered or failed', () => {
    assert.equal(canTransition('queued', 'sent'), true);
    assert.equal(canTransition('queued', 'delivered'), true);
    assert.equal(canTransition('queued', 'failed'), true);
  });

  test('sent moves to delivered or failed', () => {
    assert.equal(canTransition('sent', 'delivered'), true);
    assert.equal(canTransition('sent', 'failed'), true);
  });

  test('nothing leaves delivered or failed', () => {
    for (const to of MESSAGE_STATUSES) {
      assert.equal(canTransition('delivered', to), false, `delivered -> ${to}`);
      assert.equal(canTransition('failed', to), false, `failed -> ${to}`);
    }
  });

  test('a status never transitions to itself', () => {
    for (const status of MESSAGE_STATUSES) {
      assert.equal(canTransition(status, status), false, status);
    }
  });

  test('no status moves backwards', () => {
    assert.equal(canTransition('sent', 'queued'), false);
    assert.equal(canTransition('delivered', 'sent'), false);
    assert.equal(canTransition('delivered', 'queued'), false);
    assert.equal(canTransition('failed', 'sent'), false);
    assert.equal(canTransition('failed', 'queued'), false);
  });

  test('delivered and failed never replace each other', () => {
    assert.equal(canTransition('delivered', 'failed'), false);
    assert.equal(canTransition('failed', 'delivered'), false);
  });

  test('exactly the five forward moves are allowed out of all sixteen pairs', () => {
    for (const from of MESSAGE_STATUSES) {
      for (const to of MESSAGE_STATUSES) {
        assert.equal(canTransition(from, to), allowed(from, to), `${from} -> ${to}`);
      }
    }
  });
});

describe('applying carrier reports', () => {
  test('an allowed report gives the new status', () => {
    assert.equal(nextStatus('queued', 'sent'), 'sent');
    assert.equal(nextStatus('sent', 'delivered'), 'delivered');
    assert.equal(nextStatus('queued', 'failed'), 'failed');
  });

  test('a duplicate report is ignored', () => {
    assert.equal(nextStatus('sent', 'sent'), null);
    assert.equal(nextStatus('delivered', 'delivered'), null);
  });

  test('a sent report arriving after the delivery receipt is ignored', () => {
    assert.equal(nextStatus('delivered', 'sent'), null);
  });

  test('a failure reported after delivery is ignored', () => {
    assert.equal(nextStatus('delivered', 'failed'), null);
  });

  test('reports in any order settle on the furthest status', () => {
    const apply = (reports: MessageStatus[]): MessageStatus =>
      reports.reduce<MessageStatus>(
        (status, report) => nextStatus(status, report) ?? status,
        'queued',
      );
    assert.equal(apply(['sent', 'delivered']), 'delivered');
    assert.equal(apply(['delivered', 'sent']), 'delivered');
    assert.equal(apply(['sent', 'sent', 'delivered', 'delivered']), 'delivered');
    assert.equal(apply(['failed', 'sent', 'delivered']), 'failed');
  });
});

describe('failure reasons', () => {
  test('the failure reasons are invalid_number, carrier_rejected, opted_out and unreachable', () => {
    assert.deepEqual(
      [...FAILURE_REASONS],
      ['invalid_number', 'carrier_rejected', 'opted_out', 'unreachable'],
    );
  });

  test('isFailureReason accepts only the listed reasons', () => {
    assert.equal(isFailureReason('opted_out'), true);
    assert.equal(isFailureReason('rejected'), false);
    assert.equal(isFailureReason(undefined), false);
  });
});

describe('group status aggregation', () => {
  test('all participants delivered makes the message delivered', () => {
    assert.equal(aggregateStatus(['delivered', 'delivered', 'delivered']), 'delivered');
  });

  test('the message is as far as its least advanced participant', () => {
    assert.equal(aggregateStatus(['delivered', 'queued', 'sent']), 'queued');
    assert.equal(aggregateStatus(['delivered', 'sent']), 'sent');
  });

  test('failed participants do not hold the message back', () => {
    assert.equal(aggregateStatus(['failed', 'delivered']), 'delivered');
    assert.equal(aggregateStatus(['sent', 'failed', 'delivered']), 'sent');
  });

  test('the message is failed only when every participant failed', () => {
    assert.equal(aggregateStatus(['failed', 'failed']), 'failed');
    assert.equal(aggregateStatus(['failed', 'queued']), 'queued');
  });

  test('no participants at all counts as failed', () => {
    assert.equal(aggregateStatus([]), 'failed');
  });

  test('when one participant moves forward, the aggregate stays or moves forward too', () => {
    const vectors: MessageStatus[][] = [[]];
    for (let size = 1; size <= 3; size++) {
      for (const prefix of vectors.filter((v) => v.length === size - 1)) {
        for (const status of MESSAGE_STATUSES) vectors.push([...prefix, status]);
      }
    }
    for (const before of vectors) {
      before.forEach((status, i) => {
        for (const to of MESSAGE_STATUSES) {
          if (!canTransition(status, to)) continue;
          const after = before.with(i, to);
          const from = aggregateStatus(before);
          const next = aggregateStatus(after);
          assert.ok(
            next === from || canTransition(from, next),
            `[${before.join()}] -> [${after.join()}]: ${from} -> ${next}`,
          );
        }
      });
    }
  });
});
