import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import webpush from 'web-push';
import { loadNotificationSettings, loadPushPublicKey } from '../../queries/notifications.ts';
import { sessionOf } from '../session-auth.ts';
import { teamActorOf } from './team-workflow.ts';

const SubscriptionBody = Type.Object(
  {
    endpoint: Type.String({ maxLength: 2048 }),
    keys: Type.Object(
      { p256dh: Type.String({ maxLength: 256 }), auth: Type.String({ maxLength: 256 }) },
      { additionalProperties: false },
    ),
    // What PushSubscription.toJSON() adds; not kept.
    expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  },
  { additionalProperties: false },
);
const EndpointBody = Type.Object(
  { endpoint: Type.String({ maxLength: 2048 }) },
  { additionalProperties: false },
);
const SettingsBody = Type.Object(
  {
    texts: Type.Union([Type.Literal('all'), Type.Literal('mine'), Type.Literal('none')]),
    calls: Type.Boolean(),
    sound: Type.Boolean(),
  },
  { additionalProperties: false },
);

/** Notification settings and Web Push subscriptions of the signed-in user. */
export async function notificationRoutes(app: FastifyInstance): Promise<void> {
  const { store, changes } = app.deps;

  // The account's VAPID public key, made on first use and kept: browsers subscribe with it.
  app.get('/push/key', async (request) => {
    const { accountId } = sessionOf(request);
    const kept = await loadPushPublicKey(store.db, accountId);
    if (kept) return { publicKey: kept };
    return changes.run('savePushKeys', { accountId, ...webpush.generateVAPIDKeys() });
  });

  app.post<{ Body: Static<typeof SubscriptionBody> }>(
    '/push/subscriptions',
    { schema: { body: SubscriptionBody } },
    async (request, reply) => {
      const { endpoint, keys } = request.body;
      const saved = await changes.run('addPushSubscription', {
        actor: teamActorOf(request),
        subscription: { endpoint, keys },
      });
      return reply.code(201).send(saved);
    },
  );

  app.post<{ Body: Static<typeof EndpointBody> }>(
    '/push/subscriptions/remove',
    { schema: { body: EndpointBody } },
    async (request) =>
      changes.run('removePushSubscription', {
        actor: teamActorOf(request),
        endpoint: request.body.endpoint,
      }),
  );

  app.get('/notification-settings', async (request) => {
    return loadNotificationSettings(store.db, sessionOf(request).user.id);
  });

  app.post<{ Body: Static<typeof SettingsBody> }>(
    '/notification-settings',
    { schema: { body: SettingsBody } },
    async (request) =>
      changes.run('updateNotificationSettings', {
        actor: teamActorOf(request),
        settings: request.body,
      }),
  );
}
