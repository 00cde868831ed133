import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { presentMessage } from '../../src/presenters/message.ts';
import type { MessageRow, RecipientRow } from '../../src/store/repos/messages.ts';

const AT = Date.UTC(2026, 0, 1);

function groupRow(status: MessageRow['status']): MessageRow {
  return {
    id: 'msg_view',
    account_id: 'acct_view',
    mode: 'test',
    conversation_id: 'cv_view',
    direction: 'outbound',
    from_phone: '+15550000000',
    to_json: JSON.stringify(['+15550000001', '+15550000002']),
    is_group: 1,
    body: 'hello',
    media_json: '[]',
    segments: 1,
    status,
    failure_reason: null,
    sender_name: null,
    contact_id: null,
    auto_reply: 0,
    created_at: AT,
    updated_at: AT,
  };
}

function recipient(
  phone: string,
  status: RecipientRow['status'],
  failureReason: string | null = null,
): RecipientRow {
  return {
    message_id: 'msg_view',
    phone,
    status,
    failure_reason: failureReason,
    carrier_ref: null,
    updated_at: AT,
    run_at: null,
    attempts: 0,
    last_error: null,
  };
}

describe('the message view', () => {
  test('a group read as `sent` before a receipt committed, with its participants read after, shows the status they add up to', () => {
    const view = presentMessage(groupRow('sent'), [
      recipient('+15550000001', 'delivered'),
      recipient('+15550000002', 'failed', 'invalid_number'),
    ]);
    assert.equal(view.status, 'delivered');
    assert.equal(view.failureReason, null);
    assert.deepEqual(view.participants, [
      { phone: '+15550000001', status: 'delivered' },
      { phone: '+15550000002', status: 'failed' },
    ]);
  });

  test('a group whose every participant failed is failed, with the first failure reason', () => {
    const view = presentMessage(groupRow('sent'), [
      recipient('+15550000001', 'failed', 'carrier_rejected'),
      recipient('+15550000002', 'failed', 'invalid_number'),
    ]);
    assert.equal(view.status, 'failed');
    assert.equal(view.failureReason, 'carrier_rejected');
  });

  test('a one-to-one message shows its stored status', () => {
    const row = { ...groupRow('sent'), is_group: 0, to_json: '"+15550000001"' };
    const view = presentMessage(row);
    assert.equal(view.status, 'sent');
    assert.equal(view.participants, undefined);
  });
});
