import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import {
  withWebhookUrls,
  type CarrierConnectionView,
} from '../../presenters/carrier-connection.ts';
import { listCarrierViews } from '../../queries/carriers.ts';
import { accountScoped } from '../../store/scope.ts';
import { requireOwner } from '../session-auth.ts';

// The owners' dashboard's carrier connections: live state, add, pause and remove
// (docs/behaviour.md#carrier-connections). The password, token or key goes in and never
// comes out; an HTTP connection's answer names the webhook URLs to give its provider.
const SmppBody = Type.Object(
  {
    type: Type.Literal('smpp'),
    host: Type.String({ maxLength: 253 }),
    port: Type.Optional(Type.Integer()),
    systemId: Type.String({ maxLength: 64 }),
    password: Type.String({ maxLength: 64 }),
    systemType: Type.Optional(Type.String({ maxLength: 64 })),
    tls: Type.Optional(Type.Boolean()),
    window: Type.Optional(Type.Integer()),
    throughput: Type.Optional(Type.Integer()),
    longMessages: Type.Optional(Type.Union([Type.Literal('udh'), Type.Literal('payload')])),
    receiptIds: Type.Optional(Type.Union([Type.Literal('dec'), Type.Literal('hex')])),
    bindMode: Type.Optional(Type.Union([Type.Literal('transceiver'), Type.Literal('pair')])),
  },
  { additionalProperties: false },
);
const TwilioBody = Type.Object(
  {
    type: Type.Literal('twilio'),
    accountSid: Type.String({ maxLength: 64 }),
    authToken: Type.String({ maxLength: 256 }),
    messagingServiceSid: Type.Optional(Type.String({ maxLength: 64 })),
    apiBase: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
);
const TelnyxBody = Type.Object(
  {
    type: Type.Literal('telnyx'),
    apiKey: Type.String({ maxLength: 256 }),
    publicKey: Type.String({ maxLength: 256 }),
    messagingProfileId: Type.Optional(Type.String({ maxLength: 128 })),
    apiBase: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
);
const SipBody = Type.Object(
  {
    type: Type.Literal('sip'),
    host: Type.String({ maxLength: 253 }),
    port: Type.Optional(Type.Integer()),
    transport: Type.Optional(
      Type.Union([Type.Literal('udp'), Type.Literal('tcp'), Type.Literal('tls')]),
    ),
    username: Type.Optional(Type.String({ maxLength: 128 })),
    password: Type.Optional(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: false },
);
const CarrierBody = Type.Union([SmppBody, TwilioBody, TelnyxBody, SipBody]);
const PauseBody = Type.Object({ paused: Type.Boolean() }, { additionalProperties: false });

export async function carrierRoutes(app: FastifyInstance): Promise<void> {
  const { store, changes, clock, config } = app.deps;
  const shown = (view: CarrierConnectionView) => withWebhookUrls(view, config.publicUrl);

  app.get('/carriers', async (request) => {
    const { accountId } = requireOwner(request);
    const views = await listCarrierViews(accountScoped(store.db, accountId), clock.now());
    return { data: views.map(shown) };
  });

  app.post<{ Body: Static<typeof CarrierBody> }>(
    '/carriers',
    { schema: { body: CarrierBody } },
    async (request, reply) => {
      const { accountId } = requireOwner(request);
      const connection = await changes.run('addCarrier', { accountId, input: request.body });
      return reply.code(201).send(shown(connection));
    },
  );

  app.post<{ Params: { id: string }; Body: Static<typeof PauseBody> }>(
    '/carriers/:id/pause',
    { schema: { body: PauseBody } },
    async (request) => {
      const { accountId } = requireOwner(request);
      return changes.run('pauseCarrier', {
        accountId,
        id: request.params.id,
        paused: request.body.paused,
      });
    },
  );

  app.post<{ Params: { id: string } }>('/carriers/:id/remove', async (request) => {
    const { accountId } = requireOwner(request);
    return changes.run('removeCarrier', { id: request.params.id, accountId });
  });
}
