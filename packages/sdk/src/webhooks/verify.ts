import {
  concatBytes,
  fromBase64,
  fromHex,
  hmacSha256,
  timingSafeEqual,
  toBase64,
  toBytes,
  toHex,
} from './crypto.ts';
import type { WebhookEvent } from './events.ts';

export { WEBHOOK_EVENT_TYPES } from './events.ts';
export type * from './events.ts';

/** The header that carries the Stripe-style signature, `t=<unix seconds>,v1=<hex>`. */
export const SIGNATURE_HEADER = 'X-Service-Signature';

/** Clock skew a receiver should allow, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Why a delivery was refused; respond 400 and do not process it. */
export const WEBHOOK_VERIFICATION_REASONS = [
  'malformed_header',
  'no_matching_signature',
  'timestamp_outside_tolerance',
  'invalid_payload',
] as const;

/** One of {@link WEBHOOK_VERIFICATION_REASONS}. */
export type WebhookVerificationReason = (typeof WEBHOOK_VERIFICATION_REASONS)[number];

/** A delivery that must not be trusted. Branch on `reason`, not on the message. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** How strict {@link verifyWebhook} is about time. */
export interface VerifyWebhookOptions {
  /** Largest allowed |now - t| in seconds. Default 300; `Infinity` skips the check (fixtures). */
  toleranceSeconds?: number;
  /** The receiving time; defaults to the clock. */
  now?: Date;
}

/**
 * Checks a delivery's `X-Service-Signature` against the endpoint's `whsec_` secret and returns
 * the event. Pass the body exactly as received (before any JSON parsing): re-serialized JSON
 * differs in bytes and never verifies. Throws {@link WebhookVerificationError}.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(tolerance >= 0)) throw new RangeError('toleranceSeconds must be zero or more');
  checkSecret(secret);
  const header = parseSignatureHeader(signatureHeader ?? '');
  const body = toBytes(rawBody);
  const expected = await serviceDigest(body, secret, header.timestamp);
  // Every candidate is compared, so timing does not tell which entry (if any) matched.
  let matched = false;
  for (const candidate of header.signatures) {
    const bytes = fromHex(candidate);
    if (bytes !== null && timingSafeEqual(bytes, expected)) matched = true;
  }
  if (!matched) {
    throw new WebhookVerificationError(
      'no_matching_signature',
      'No v1 signature matches the body and secret: check the secret and that the body is unmodified',
    );
  }
  // Checked after the signature (as Stripe does) so this reason always means an authentic but
  // old or early delivery: a replay, or a clock that needs fixing.
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(header.timestamp)) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_outside_tolerance',
      `Signature timestamp ${header.timestamp} is more than ${tolerance} s from now (${now})`,
    );
  }
  return parseEvent(body);
}

/** Options for {@link signWebhookPayload}. */
export interface SignWebhookOptions {
  /** Unix seconds to sign with; defaults to now. */
  timestamp?: number;
}

/**
 * The `X-Service-Signature` value the service would send for this body, for testing your own
 * receiver. Several secrets give one `v1=` each, as during a rotation.
 */
export async function signWebhookPayload(
  rawBody: string | Uint8Array,
  secret: string | readonly string[],
  options: SignWebhookOptions = {},
): Promise<string> {
  const timestamp = String(checkTimestamp(options.timestamp ?? Math.floor(Date.now() / 1000)));
  const body = toBytes(rawBody);
  const parts = [`t=${timestamp}`];
  for (const one of typeof secret === 'string' ? [secret] : secret) {
    checkSecret(one);
    parts.push(`v1=${toHex(await serviceDigest(body, one, timestamp))}`);
  }
  return parts.join(',');
}

/** The values the Standard Webhooks signature covers besides the body. */
export interface StandardWebhooksSignOptions {
  /** The `webhook-id` header: the event's `evt_` id. */
  id: string;
  /** The `webhook-timestamp` header, in Unix seconds. */
  timestamp: number;
}

/**
 * The `webhook-signature` value (`v1,<base64>`) the service sends alongside its own header, so
 * `standardwebhooks` and Svix verifiers work. Its key is the base64 after `whsec_`, decoded;
 * several secrets give space-separated entries.
 */
export async function standardWebhooksSignature(
  rawBody: string | Uint8Array,
  secret: string | readonly string[],
  options: StandardWebhooksSignOptions,
): Promise<string> {
  const timestamp = checkTimestamp(options.timestamp);
  const signed = concatBytes(toBytes(`${options.id}.${timestamp}.`), toBytes(rawBody));
  const entries: string[] = [];
  for (const one of typeof secret === 'string' ? [secret] : secret) {
    const key = fromBase64(one.startsWith('whsec_') ? one.slice('whsec_'.length) : one);
    if (key === null || key.length === 0) {
      throw new TypeError('A Standard Webhooks secret is whsec_ followed by non-empty base64');
    }
    entries.push(`v1,${toBase64(await hmacSha256(key, signed))}`);
  }
  return entries.join(' ');
}

interface SignatureHeader {
  /** Kept as sent: the digest covers these exact characters. */
  timestamp: string;
  signatures: string[];
}

function parseSignatureHeader(header: string): SignatureHeader {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq === -1) throw malformed(`"${item.trim()}" is not key=value`);
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined) throw malformed('t appears more than once');
      if (!/^\d{1,12}$/.test(value)) throw malformed('t is not a Unix time in seconds');
      timestamp = value;
    } else if (key === 'v1') {
      signatures.push(value);
    }
    // Other keys are schemes this SDK does not know (Stripe sends v0 in test mode): skipped.
  }
  if (timestamp === undefined) throw malformed('t is missing');
  if (signatures.length === 0) throw malformed('no v1 signature');
  return { timestamp, signatures };
}

function malformed(detail: string): WebhookVerificationError {
  return new WebhookVerificationError(
    'malformed_header',
    `Malformed ${SIGNATURE_HEADER}: ${detail}`,
  );
}

// Keyed with the secret's own UTF-8 text, `whsec_` included, exactly as Stripe keys its scheme.
function serviceDigest(
  body: Uint8Array,
  secret: string,
  timestamp: string,
): Promise<Uint8Array<ArrayBuffer>> {
  return hmacSha256(toBytes(secret), concatBytes(toBytes(`${timestamp}.`), body));
}

function parseEvent(body: Uint8Array): WebhookEvent {
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not UTF-8 JSON');
  }
  if (!isEnvelope(event)) {
    throw new WebhookVerificationError(
      'invalid_payload',
      'The signed body is not an event envelope {id, type, createdAt, data}',
    );
  }
  return event;
}

function isEnvelope(value: unknown): value is WebhookEvent {
  if (typeof value !== 'object' || value === null) return false;
  const { id, type, createdAt, data } = value as Record<string, unknown>;
  return (
    typeof id === 'string' &&
    typeof type === 'string' &&
    typeof createdAt === 'string' &&
    typeof data === 'object' &&
    data !== null
  );
}

// A secret mistake is a deployment bug (unset variable), not a forged request: a TypeError
// lets a receiver answer 500 rather than 400.
function checkSecret(secret: string): void {
  if (typeof secret !== 'string' || secret === '') {
    throw new TypeError('The webhook secret is empty: pass the endpoint whsec_ secret');
  }
}

// 1e11 seconds is the year 5138, so anything larger is milliseconds passed by mistake.
function checkTimestamp(timestamp: number): number {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0 || timestamp >= 1e11) {
    throw new RangeError(`timestamp must be whole Unix seconds, got ${timestamp}`);
  }
  return timestamp;
}
