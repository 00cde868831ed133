// A Telnyx callback, verified before it is read: Ed25519 over `timestamp|body`, within the
// tolerance, by the public key the connection was given.
import type { TelnyxSecret, TelnyxSettings } from '../../domain/http-carrier-settings.ts';
import type { ProviderCallback } from '../provider/provider-callback.ts';
import { telnyxEvent, telnyxInbound, telnyxReceipt } from './telnyx-callbacks.ts';
import { telnyxPublicKey, verifyTelnyxSignature } from './telnyx-signature.ts';

const header = (value: string | string[] | undefined) =>
  typeof value === 'string' ? value : undefined;

export const telnyxCallback: ProviderCallback<TelnyxSecret> = {
  verify({ settings, headers, body, now }) {
    const key = telnyxPublicKey((settings as TelnyxSettings).publicKey);
    const signed = verifyTelnyxSignature(
      key,
      body,
      header(headers['telnyx-timestamp']),
      header(headers['telnyx-signature-ed25519']),
      now,
    );
    const event = signed ? telnyxEvent(body) : null;
    if (!signed) return null;
    return {
      receipt: (kind) =>
        kind === 'status' && event ? telnyxReceipt(event.type, event.payload) : null,
      inbound: (kind) =>
        kind === 'inbound' && event ? telnyxInbound(event.type, event.payload) : null,
    };
  },
  // Telnyx's media URLs are pre-signed: they want no credentials.
  mediaAuthorization: () => undefined,
  answer: { contentType: 'application/json', body: '{}' },
};
