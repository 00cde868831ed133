import type { MessageRow } from '../../src/store/repos/messages.ts';

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
    updated_at: fields.created_at,
    ...fields,
  };
}
