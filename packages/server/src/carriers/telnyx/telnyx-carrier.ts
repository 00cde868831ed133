// One Telnyx connection behind the live carrier: each submission is one `POST /v2/messages`
// (Telnyx's OpenAPI: createMessage), the message id is the carrier reference, and its
// `webhook_url` names this connection.
import {
  carrierCallbackPath,
  type TelnyxSecret,
  type TelnyxSettings,
} from '../../domain/http-carrier-settings.ts';
import { CarrierRejection, type Submission, type SubmitResult } from '../carrier.ts';
import type { AdapterConfig, ConnectionAdapter } from '../live/live-carrier.ts';
import { apiClient, httpAdapter, RateLimited, retryAfterMs } from '../provider/http-adapter.ts';
import { telnyxErrorOf, telnyxFailure } from './telnyx-errors.ts';

export function telnyxAdapter(
  config: AdapterConfig<TelnyxSettings, TelnyxSecret>,
): ConnectionAdapter {
  const { settings, secret } = config;
  const client = apiClient();
  const url = `${settings.apiBase}/v2/messages`;
  const webhookUrl =
    config.publicUrl === null ? null : config.publicUrl + carrierCallbackPath(config.id, 'status');

  const send = async (submission: Submission): Promise<SubmitResult> => {
    const body = {
      from: submission.from,
      to: submission.to,
      ...(submission.body ? { text: submission.body } : {}),
      ...(submission.mediaUrls.length > 0 ? { media_urls: submission.mediaUrls } : {}),
      ...(settings.messagingProfileId ? { messaging_profile_id: settings.messagingProfileId } : {}),
      ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
    };
    const answer = await client.post(
      url,
      { authorization: `Bearer ${secret.apiKey}` },
      JSON.stringify(body),
      'application/json',
    );
    if (answer.status >= 200 && answer.status < 300) {
      const id = (answer.body as { data?: { id?: unknown } } | null)?.data?.id;
      if (typeof id !== 'string') throw new Error('Telnyx answered without a message id.');
      return { carrierRef: id };
    }
    const error = telnyxErrorOf(answer.body);
    const why = `Telnyx ${answer.status}${error.code ? ` (${error.code})` : ''}: ${error.title}`;
    if (answer.status === 429) {
      throw new RateLimited(retryAfterMs(answer.headers['retry-after'], Date.now()), why);
    }
    // Its own key refused: a fault of the connection, retried once it is fixed.
    if (
      answer.status >= 400 &&
      answer.status < 500 &&
      answer.status !== 401 &&
      answer.status !== 403
    ) {
      throw new CarrierRejection(telnyxFailure(error.code), why);
    }
    throw new Error(why);
  };

  return httpAdapter({ id: config.id, now: Date.now, send, close: () => client.close() });
}
