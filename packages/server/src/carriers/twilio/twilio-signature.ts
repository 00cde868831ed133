// X-Twilio-Signature (https://www.twilio.com/docs/usage/webhooks/webhooks-security): base64
// HMAC-SHA1, keyed by the auth token, over the full URL Twilio called followed by every POST
// parameter's name and value, sorted by name.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The signature of a form-encoded POST to `url`; a repeated name counts each value, in order. */
export function twilioSignature(
  authToken: string,
  url: string,
  params: readonly (readonly [string, string])[],
): string {
  const sorted = [...params]
    .map(([k, v], i) => ({ k, v, i }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i))
    .map(({ k, v }) => k + v)
    .join('');
  return createHmac('sha1', authToken)
    .update(url + sorted, 'utf8')
    .digest('base64');
}

/** Whether `header` is Twilio's signature of this request, compared in constant time. */
export function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: readonly (readonly [string, string])[],
  header: string | undefined,
): boolean {
  if (!header) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
