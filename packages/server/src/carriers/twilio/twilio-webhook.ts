// A Twilio callback, verified before it is read: the signature covers the URL Twilio called
// (on SWITCHBOARD_PUBLIC_URL) and every form parameter.
import type { TwilioSecret, TwilioSettings } from '../../domain/http-carrier-settings.ts';
import type { ProviderCallback } from '../provider/provider-callback.ts';
import { twilioInbound, twilioReceipt } from './twilio-callbacks.ts';
import { verifyTwilioSignature } from './twilio-signature.ts';

export const twilioCallback: ProviderCallback<TwilioSecret> = {
  verify({ secret, url, headers, body }) {
    const form = new URLSearchParams(body);
    const signature = headers['x-twilio-signature'];
    if (
      url === null ||
      !verifyTwilioSignature(
        secret.authToken,
        url,
        [...form.entries()],
        typeof signature === 'string' ? signature : undefined,
      )
    ) {
      return null;
    }
    return {
      receipt: (kind) => (kind === 'status' ? twilioReceipt(form) : null),
      inbound: (kind) => (kind === 'inbound' ? twilioInbound(form) : null),
    };
  },
  // Media URLs ask for the account's credentials, as its REST API does (HTTP Basic).
  mediaAuthorization: (secret, settings) =>
    `Basic ${Buffer.from(`${(settings as TwilioSettings).accountSid}:${secret.authToken}`).toString('base64')}`,
  // An empty TwiML answer: Twilio sends no reply of its own.
  answer: { contentType: 'text/xml', body: '<?xml version="1.0" encoding="UTF-8"?><Response/>' },
};
