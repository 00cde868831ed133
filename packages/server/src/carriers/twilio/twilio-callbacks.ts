// What Twilio posts to a connection's webhook URLs, read: a status callback as a receipt, an
// incoming message as an inbound text (https://www.twilio.com/docs/messaging/guides/webhook-request).
import type { DeliveryReceipt, InboundText } from '../carrier.ts';
import { twilioDeliveryFailure } from './twilio-errors.ts';

/** The receipt a status callback reports, or null for a status that moves nothing (queued, sending). */
export function twilioReceipt(form: URLSearchParams): DeliveryReceipt | null {
  const sid = form.get('MessageSid') ?? form.get('SmsSid');
  const status = form.get('MessageStatus') ?? form.get('SmsStatus');
  if (!sid) return null;
  const code = Number(form.get('ErrorCode'));
  switch (status) {
    case 'sent':
      return { carrierRef: sid, status: 'sent', failureReason: null };
    case 'delivered':
    case 'read':
      return { carrierRef: sid, status: 'delivered', failureReason: null };
    case 'failed':
    case 'undelivered':
      return {
        carrierRef: sid,
        status: 'failed',
        failureReason: twilioDeliveryFailure(Number.isInteger(code) && code > 0 ? code : null),
      };
    default:
      return null;
  }
}

/** An incoming message, with the URLs of its media (fetched with the connection's credentials). */
export function twilioInbound(form: URLSearchParams): InboundText | null {
  const from = form.get('From');
  const to = form.get('To');
  if (!from || !to) return null;
  const count = Math.min(Number(form.get('NumMedia') ?? 0) || 0, 10);
  const mediaUrls: string[] = [];
  for (let i = 0; i < count; i++) {
    const url = form.get(`MediaUrl${i}`);
    if (url) mediaUrls.push(url);
  }
  const providerId = form.get('MessageSid') ?? form.get('SmsSid') ?? undefined;
  return { mode: 'live', from, to, body: form.get('Body') ?? '', mediaUrls, providerId };
}
