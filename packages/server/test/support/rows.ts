import type { MessageRow, RecipientRow } from '../../src/store/repos/messages.ts';
import type { WebhookEndpointRow } from '../../src/store/repos/webhook-endpoints.ts';

/**
 * An outbound message row to `to` (a group when it is an array of several), for
 * tests that write rows through the repos instead of the API; `fields` override.
 */
export function outboundMessageRow(
  fields: Pick<MessageRow, 'id' | 'account_id' | 'status' | 'created_at'> & Partial<MessageRow>,
  to: string | string[],
): MessageRow {
  const group = Array.isArray(to) && to.length > 1;
  return {
    mode: 'test',
    conversation_id: `cv_${fields.id}`,
    direction: 'outbound',
    from_phone: '+15550000000',
    to_json: JSON.stringify(group ? to : Array.isArray(to) ? to[0] : to),
    is_group: group ? 1 : 0,
    body: 'hello',
    media_json: '[]',
    segments: 1,
    failure_reason: null,
    sender_name: null,
    contact_id: null,
    auto_reply: 0,
    updated_at: fields.created_at,
    ...fields,
  };
}

/**
 * A recipient row of message `messageId`, for tests that write rows through the
 * repos; `fields` override. Not a submission still to make (`run_at` null) unless
 * `fields` say so.
 */
export function recipientRow(
  messageId: string,
  phone: string,
  fields: Partial<RecipientRow> = {},
): RecipientRow {
  return {
    message_id: messageId,
    phone,
    status: 'queued',
    failure_reason: null,
    carrier_ref: null,
    updated_at: 0,
    run_at: null,
    attempts: 0,
    last_error: null,
    ...fields,
  };
}

/**
 * An enabled webhook endpoint row of `account_id` (test mode, `contact.created`),
 * for tests that write rows through the repos; `fields` override.
 */
export function webhookEndpointRow(
  fields: Pick<WebhookEndpointRow, 'id' | 'account_id' | 'created_at'> &
    Partial<WebhookEndpointRow>,
): WebhookEndpointRow {
  return {
    mode: 'test',
    url: 'https://example.com/hook',
    description: null,
    events_json: '["contact.created"]',
    enabled: 1,
    disabled_reason: null,
    secret_sealed: 'sealed',
    previous_secret_sealed: null,
    previous_secret_expires_at: null,
    failing_since: null,
    deleted_at: null,
    updated_at: fields.created_at,
    ...fields,
  };
}
