// Webhook signing. Two schemes are sent on every delivery so that receivers can
// use whichever verifier they already have: the Stripe-style `X-Service-Signature`
// and the Standard Webhooks headers (docs/behaviour.md#signature).
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/** Every signing secret starts with this; the rest is the base64 of the key bytes. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

const SECRET_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A fresh endpoint secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** What one delivery is signed over; `body` must be the exact text sent, byte for byte. */
export interface SignatureInput {
  /** The `evt_` id, reused on every retry of the event. */
  eventId: string;
  /** Unix seconds at signing time. */
  timestamp: number;
  body: string;
  /** The current secret first, then any older secret still valid during a rotation. */
  secrets: readonly string[];
}

/** All signing headers of one delivery, named as they are sent. */
export interface SignatureHeaders {
  'X-Service-Signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The signing headers for a delivery, one signature per secret in each scheme,
 * so a receiver holding either the old or the new secret verifies during a rotation.
 */
export function signatureHeaders({
  eventId,
  timestamp,
  body,
  secrets,
}: SignatureInput): SignatureHeaders {
  // Eleven digits of seconds is the year 5138: such a value is Date.now() passed by mistake.
  if (!Number.isSafeInteger(timestamp) || timestamp < 0 || timestamp > 99_999_999_999) {
    throw new RangeError(`timestamp must be whole unix seconds, got ${timestamp}`);
  }
  if (secrets.length === 0) throw new RangeError('at least one secret is needed to sign');
  // Header values cannot carry CR/LF, and Standard Webhooks puts the id inside the signed text.
  if (!/^[\x21-\x7e]+$/.test(eventId)) throw new RangeError('eventId must be printable ASCII');

  const t = String(timestamp);
  const stripe: string[] = [`t=${t}`];
  const standard: string[] = [];
  for (const secret of secrets) {
    const keys = keysOf(secret);
    stripe.push(`v1=${createHmac('sha256', keys.stripe).update(`${t}.${body}`).digest('hex')}`);
    const digest = createHmac('sha256', keys.standard)
      .update(`${eventId}.${t}.${body}`)
      .digest('base64');
    standard.push(`v1,${digest}`);
  }
  return {
    'X-Service-Signature': stripe.join(','),
    'webhook-id': eventId,
    'webhook-timestamp': t,
    'webhook-signature': standard.join(' '),
  };
}

/** The HMAC keys of one secret in each scheme. */
interface SecretKeys {
  stripe: KeyObject;
  standard: KeyObject;
}

/**
 * Keys made once per secret: decoding and checking the secret, and turning bytes into a
 * key, cost more than the HMAC itself (a Buffer key ~10 µs a signature, a KeyObject ~1.5).
 */
const keyCache = new Map<string, SecretKeys>();
const KEY_CACHE_SIZE = 1000;

function keysOf(secret: string): SecretKeys {
  let keys = keyCache.get(secret);
  if (!keys) {
    keys = {
      // The Stripe-style scheme keys with the whole secret string, prefix included, so
      // Stripe verifiers work when handed the secret exactly as the API showed it.
      stripe: createSecretKey(Buffer.from(secret, 'utf8')),
      standard: createSecretKey(standardKey(secret)),
    };
    if (keyCache.size >= KEY_CACHE_SIZE) keyCache.clear();
    keyCache.set(secret, keys);
  }
  return keys;
}

/** Standard Webhooks keys the HMAC with the decoded bytes after `whsec_`. */
function standardKey(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    throw new RangeError(`a webhook secret must start with ${WEBHOOK_SECRET_PREFIX}`);
  }
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  // Buffer.from silently skips invalid base64, which would sign with a key the receiver never has.
  if (!BASE64.test(encoded)) throw new RangeError('a webhook secret must be base64 after whsec_');
  return Buffer.from(encoded, 'base64');
}
