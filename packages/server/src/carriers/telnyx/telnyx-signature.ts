// Telnyx webhook signatures (https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks):
// `telnyx-signature-ed25519` is the base64 Ed25519 signature of `${telnyx-timestamp}|${body}`
// by the account's key; a timestamp further than the tolerance from now is refused (replay).
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/** Five minutes either way, as Telnyx's own libraries allow. */
export const TELNYX_TOLERANCE_S = 300;

/** The DER prefix that makes a raw 32-byte Ed25519 key a SubjectPublicKeyInfo. */
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

/** The Ed25519 key of a base64 public key as Telnyx's portal shows it. */
export function telnyxPublicKey(base64: string): KeyObject {
  return createPublicKey({
    key: Buffer.concat([SPKI_ED25519, Buffer.from(base64, 'base64')]),
    format: 'der',
    type: 'spki',
  });
}

/** Whether the body, timestamp and signature verify under `key` within the tolerance of `nowMs`. */
export function verifyTelnyxSignature(
  key: KeyObject,
  body: string,
  timestamp: string | undefined,
  signature: string | undefined,
  nowMs: number,
): boolean {
  if (!timestamp || !signature || !/^\d{1,15}$/.test(timestamp)) return false;
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > TELNYX_TOLERANCE_S) return false;
  const bytes = Buffer.from(signature, 'base64');
  if (bytes.length !== 64) return false;
  return verify(null, Buffer.from(`${timestamp}|${body}`, 'utf8'), key, bytes);
}
