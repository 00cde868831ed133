// Twilio's error codes as Switchboard's failure reasons (https://www.twilio.com/docs/api/errors).
import type { FailureReason } from '../../domain/message-status.ts';

/** Codes of the Messages API that mean the number itself is wrong. */
const INVALID_NUMBER_API = new Set([21211, 21214, 21217, 21401, 21407, 21421, 21614]);
/** Codes of delivery (status callbacks) that mean the number itself is wrong. */
const INVALID_NUMBER_DELIVERY = new Set([30005, 30006]);
/** Codes of delivery that mean the handset could not be reached. */
const UNREACHABLE_DELIVERY = new Set([30003, 30008]);
/** The recipient opted out at Twilio (replied STOP to that sender). */
const OPTED_OUT = new Set([21610, 30004]);

/** What a refused Messages API request means for the message (a 4xx other than 429). */
export function twilioApiFailure(code: number | null): FailureReason {
  if (code !== null && INVALID_NUMBER_API.has(code)) return 'invalid_number';
  if (code !== null && OPTED_OUT.has(code)) return 'opted_out';
  return 'carrier_rejected';
}

/** What an `ErrorCode` of a failed or undelivered status callback means. */
export function twilioDeliveryFailure(code: number | null): FailureReason {
  if (code !== null && INVALID_NUMBER_DELIVERY.has(code)) return 'invalid_number';
  if (code !== null && UNREACHABLE_DELIVERY.has(code)) return 'unreachable';
  if (code !== null && OPTED_OUT.has(code)) return 'opted_out';
  return 'carrier_rejected';
}
