import { createHmac } from 'node:crypto';

/** The endpoint secret the suites verify with, in the service's `whsec_` + base64 format. */
export const SECRET = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
/** A second valid secret: the wrong one, or the other one during a rotation. */
export const OTHER_SECRET = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
/** The signing time, Unix seconds. */
export const T = 1767225600;
/** Verify options that put the receiver's clock at the signing time. */
export const AT_T = { now: new Date(T * 1000) };

/** A `message.received` event with non-ASCII text, so bytes and UTF-16 lengths differ. */
export const EVENT = {
  id: 'evt_0Ab3cD4eF5gH6iJ7kL8mN9',
  type: 'message.received',
  createdAt: '2026-01-01T00:00:00.000Z',
  data: {
    id: 'msg_1',
    object: 'message',
    from: '+14155550123',
    to: '+12125550100',
    body: 'Grüße 👋',
    direction: 'inbound',
    status: 'delivered',
    segments: 1,
    conversationId: 'cv_1',
    media: [],
    senderName: null,
    failureReason: null,
    createdAt: '2026-01-01T00:00:00.000Z',
  },
};
/** The raw body as delivered. */
export const BODY = JSON.stringify(EVENT);

/** `X-Service-Signature` computed with node:crypto, so the SDK is checked against another implementation. */
export function nodeHeader(body: string | Uint8Array, secret: string, t: number): string {
  const hex = createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
  return `t=${t},v1=${hex}`;
}
