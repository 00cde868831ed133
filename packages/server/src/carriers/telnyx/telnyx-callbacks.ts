// What Telnyx posts to a connection's webhook URLs (`{data: {event_type, payload}}`), read:
// `message.sent` and `message.finalized` as receipts, `message.received` as an inbound text
// (https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks).
import type { DeliveryReceipt, InboundText } from '../carrier.ts';
import { telnyxFailure } from './telnyx-errors.ts';

interface TelnyxPayload {
  id?: unknown;
  from?: { phone_number?: unknown };
  to?: { phone_number?: unknown; status?: unknown }[];
  text?: unknown;
  media?: { url?: unknown }[];
  errors?: { code?: unknown }[];
}

/** The event's type and payload, or null when the body is not a Telnyx event. */
export function telnyxEvent(body: string): { type: string; payload: TelnyxPayload } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const data = (parsed as { data?: { event_type?: unknown; payload?: unknown } } | null)?.data;
  if (typeof data?.event_type !== 'string' || typeof data.payload !== 'object' || !data.payload) {
    return null;
  }
  return { type: data.event_type, payload: data.payload as TelnyxPayload };
}

/** The receipt an outbound message's event reports, or null for one that moves nothing. */
export function telnyxReceipt(type: string, payload: TelnyxPayload): DeliveryReceipt | null {
  if (typeof payload.id !== 'string') return null;
  const status = payload.to?.[0]?.status;
  if (type === 'message.sent')
    return { carrierRef: payload.id, status: 'sent', failureReason: null };
  if (type !== 'message.finalized') return null;
  if (status === 'delivered') {
    return { carrierRef: payload.id, status: 'delivered', failureReason: null };
  }
  if (status === 'delivery_failed' || status === 'sending_failed') {
    const code = payload.errors?.[0]?.code;
    return {
      carrierRef: payload.id,
      status: 'failed',
      failureReason: telnyxFailure(code === undefined ? null : String(code)),
    };
  }
  // delivery_unconfirmed: the carrier said nothing more; it left.
  return { carrierRef: payload.id, status: 'sent', failureReason: null };
}

/** An incoming message, with the URLs of its media. */
export function telnyxInbound(type: string, payload: TelnyxPayload): InboundText | null {
  if (type !== 'message.received') return null;
  const from = payload.from?.phone_number;
  const to = payload.to?.[0]?.phone_number;
  if (typeof from !== 'string' || typeof to !== 'string') return null;
  const mediaUrls = (payload.media ?? [])
    .map((m) => m.url)
    .filter((u): u is string => typeof u === 'string')
    .slice(0, 10);
  return {
    mode: 'live',
    from,
    to,
    body: typeof payload.text === 'string' ? payload.text : '',
    mediaUrls,
    providerId: typeof payload.id === 'string' ? payload.id : undefined,
  };
}
