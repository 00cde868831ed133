// `POST /v1/carriers/{id}/status|inbound`: what a Twilio or Telnyx connection's provider
// posts (docs/behaviour.md#http-carriers). No API key: the provider's signature is checked
// before anything changes, and a callback that does not verify gets 403.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DeliveryReceipt } from '../../carriers/carrier.ts';
import type { ProviderCallback } from '../../carriers/provider/provider-callback.ts';
import { telnyxCallback } from '../../carriers/telnyx/telnyx-webhook.ts';
import { twilioCallback } from '../../carriers/twilio/twilio-webhook.ts';
import { webhookDispatcher } from '../../delivery/guarded-dispatcher.ts';
import { ApiError } from '../../domain/errors.ts';
import { ingestMedia } from '../media/ingest-media.ts';
import { CALLBACK_SCHEMAS } from '../schemas/carrier-callbacks.ts';
import { findCallbackConnection } from '../../queries/carriers.ts';
import { inboundRef, receivedAlready } from '../../queries/inbound-refs.ts';

const PROVIDERS: Record<string, ProviderCallback<never>> = {
  twilio: twilioCallback as ProviderCallback<never>,
  telnyx: telnyxCallback as ProviderCallback<never>,
};

/** A receipt that overtook the API's answer (its reference not yet recorded) is tried again this often. */
const UNKNOWN_RETRY_MS = 250;
const UNKNOWN_RETRIES = 8;

const forbidden = () =>
  new ApiError('unauthorized', 'The callback is not signed by this connection.', { status: 403 });

export async function carrierCallbackRoutes(app: FastifyInstance): Promise<void> {
  const { store, changes, secrets, config, clock } = app.deps;
  // Inbound media are fetched through the webhooks' SSRF guard.
  const dispatcher = webhookDispatcher({ allowPrivate: config.webhookAllowPrivate });
  app.addHook('onClose', async () => dispatcher.close());
  // Signatures cover the body as sent: every body is kept as text, whatever its type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  const applyReceipt = async (receipt: DeliveryReceipt): Promise<boolean> => {
    for (let attempt = 0; attempt <= UNKNOWN_RETRIES; attempt++) {
      const [outcome] = await changes.run('applyCarrierReceipts', { receipts: [receipt] });
      if (outcome !== 'unknown') return true;
      await new Promise((resolve) => setTimeout(resolve, UNKNOWN_RETRY_MS));
    }
    return false;
  };

  for (const kind of ['status', 'inbound'] as const) {
    app.post<{ Params: { id: string } }>(
      `/carriers/:id/${kind}`,
      { config: { public: true, providerBody: true }, schema: CALLBACK_SCHEMAS[kind] },
      async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
        const row = await findCallbackConnection(store.db, request.params.id);
        const provider = row ? PROVIDERS[row.type] : undefined;
        if (!row || !provider) {
          throw new ApiError('not_found', `No such carrier connection: '${request.params.id}'.`);
        }
        const secret = JSON.parse(secrets.open(row.secret_sealed)) as never;
        const settings = JSON.parse(row.settings_json) as unknown;
        const verified = provider.verify({
          secret,
          settings,
          url: config.publicUrl === null ? null : config.publicUrl + request.url,
          headers: request.headers,
          body: typeof request.body === 'string' ? request.body : '',
          now: clock.now(),
        });
        if (!verified) throw forbidden();
        const receipt = verified.receipt(kind);
        if (receipt) {
          const named = { ...receipt, carrierRef: `${row.id}/${receipt.carrierRef}` };
          // Unknown after the retries: a 503 has the provider post it again later.
          if (!(await applyReceipt(named))) {
            throw new ApiError('service_unavailable', 'No message has this reference yet.', {
              headers: { 'retry-after': '5' },
            });
          }
        }
        const inbound = verified.inbound(kind);
        const carrierRef = inbound ? inboundRef(row.id, inbound.providerId) : undefined;
        // A text the provider posts again is answered as before, without fetching its media again.
        if (inbound && !(carrierRef && (await receivedAlready(store.db, carrierRef)))) {
          const { providerId: _, ...text } = inbound;
          const { media, keep } = await ingestMedia(
            { secrets, config, clock, dispatcher },
            inbound.mediaUrls,
            provider.mediaAuthorization(secret, settings),
          );
          await changes.run('receiveMessage', {
            input: { ...text, mediaUrls: [], media, keep, carrierRef },
            accountId: row.account_id,
          });
        }
        return reply.type(provider.answer.contentType).send(provider.answer.body);
      },
    );
  }
}
