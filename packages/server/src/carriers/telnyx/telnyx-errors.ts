// Telnyx's error codes as Switchboard's failure reasons
// (https://developers.telnyx.com/docs/messaging/messages/error-codes).
import type { FailureReason } from '../../domain/message-status.ts';

/** The number itself is wrong: not routable, an invalid `to`, not E.164. */
const INVALID_NUMBER = new Set(['40001', '40310', '10002', '10016']);
/** The handset or its network could not be reached. */
const UNREACHABLE = new Set(['40005', '40006']);
/** The recipient opted out (replied STOP) at Telnyx. */
const OPTED_OUT = new Set(['40300']);

/** What a Telnyx error code (of a refused request or a failed delivery) means for the message. */
export function telnyxFailure(code: string | null): FailureReason {
  if (code !== null && INVALID_NUMBER.has(code)) return 'invalid_number';
  if (code !== null && UNREACHABLE.has(code)) return 'unreachable';
  if (code !== null && OPTED_OUT.has(code)) return 'opted_out';
  return 'carrier_rejected';
}

/** The first error's code of a Telnyx error body (`{errors: [{code, title, detail}]}`). */
export function telnyxErrorOf(body: unknown): { code: string | null; title: string } {
  const first = (
    body as { errors?: { code?: unknown; title?: unknown; detail?: unknown }[] } | null
  )?.errors?.[0];
  return {
    code: first?.code === undefined ? null : String(first.code),
    title: String(first?.detail ?? first?.title ?? 'no message'),
  };
}
