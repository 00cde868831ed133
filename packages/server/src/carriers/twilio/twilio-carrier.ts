// One Twilio connection behind the live carrier: each submission is one Messages API request
// (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource),
// the message SID is the carrier reference, and its status callback names this connection.
import {
  carrierCallbackPath,
  type TwilioSecret,
  type TwilioSettings,
} from '../../domain/http-carrier-settings.ts';
import { CarrierRejection, type Submission, type SubmitResult } from '../carrier.ts';
import { apiClient, httpAdapter, RateLimited, retryAfterMs } from '../provider/http-adapter.ts';
import type { AdapterConfig, ConnectionAdapter } from '../live/live-carrier.ts';
import { twilioApiFailure } from './twilio-errors.ts';

interface TwilioError {
  code?: number;
  message?: string;
}

export function twilioAdapter(
  config: AdapterConfig<TwilioSettings, TwilioSecret>,
): ConnectionAdapter {
  const { settings, secret } = config;
  const client = apiClient();
  const url = `${settings.apiBase}/2010-04-01/Accounts/${settings.accountSid}/Messages.json`;
  const auth = `Basic ${Buffer.from(`${settings.accountSid}:${secret.authToken}`).toString('base64')}`;
  const statusCallback =
    config.publicUrl === null ? null : config.publicUrl + carrierCallbackPath(config.id, 'status');

  const send = async (submission: Submission): Promise<SubmitResult> => {
    const form = new URLSearchParams({ To: submission.to });
    if (settings.messagingServiceSid) form.set('MessagingServiceSid', settings.messagingServiceSid);
    else form.set('From', submission.from);
    if (submission.body) form.set('Body', submission.body);
    for (const media of submission.mediaUrls) form.append('MediaUrl', media);
    if (statusCallback) form.set('StatusCallback', statusCallback);
    const answer = await client.post(
      url,
      { authorization: auth },
      form.toString(),
      'application/x-www-form-urlencoded',
    );
    const body = (answer.body ?? {}) as TwilioError & { sid?: unknown };
    if (answer.status === 200 || answer.status === 201) {
      if (typeof body.sid !== 'string') throw new Error('Twilio answered without a message SID.');
      return { carrierRef: body.sid };
    }
    const why = `Twilio ${answer.status}${body.code ? ` (${body.code})` : ''}: ${body.message ?? 'no message'}`;
    if (answer.status === 429)
      throw new RateLimited(retryAfterMs(answer.headers['retry-after'], Date.now()), why);
    // Its own credentials refused: a fault of the connection, retried once it is fixed.
    if (
      answer.status >= 400 &&
      answer.status < 500 &&
      answer.status !== 401 &&
      answer.status !== 403
    ) {
      throw new CarrierRejection(
        twilioApiFailure(typeof body.code === 'number' ? body.code : null),
        why,
      );
    }
    throw new Error(why);
  };

  return httpAdapter({ id: config.id, now: Date.now, send, close: () => client.close() });
}
