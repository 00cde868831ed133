import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { validationError } from '../../domain/errors.ts';
import { hashPassword } from '../../lib/secrets.ts';
import { MIN_PASSWORD_LENGTH } from '../../commands/create-user.ts';
import { listKeyHints, listNumbers, listOptOutEntries, listTeam } from '../../queries/account.ts';
import { loadDeliveryLog } from '../../queries/delivery-log.ts';
import { listWebhookEndpointPage } from '../../queries/webhook-endpoints.ts';
import { checkEndpointUrl, checkEventTypes } from '../../commands/webhooks/endpoint-rules.ts';
import { webhookDeps } from '../../delivery/webhook-deps.ts';
import { modeOf, requireOwner } from '../session-auth.ts';
import { accountScoped, scoped } from '../../store/scope.ts';

const EndpointBody = Type.Object(
  {
    url: Type.Optional(Type.String({ maxLength: 2048 })),
    events: Type.Optional(Type.Array(Type.String(), { maxItems: 20 })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const InviteBody = Type.Object(
  {
    email: Type.String({ maxLength: 320 }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    password: Type.String({ maxLength: 1024 }),
    role: Type.Optional(Type.Union([Type.Literal('owner'), Type.Literal('member')])),
  },
  { additionalProperties: false },
);
const TeammateBody = Type.Object(
  {
    role: Type.Optional(Type.Union([Type.Literal('owner'), Type.Literal('member')])),
    disabled: Type.Optional(Type.Boolean()),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);
const HelpBody = Type.Object(
  { helpReply: Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]) },
  { additionalProperties: false },
);

/** The owners' dashboard: API keys, numbers, webhooks and their delivery log, opt-outs, team, settings. */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  const { store, changes } = app.deps;
  const deps = webhookDeps(app.deps);

  app.get('/keys', async (request) => {
    const { accountId } = requireOwner(request);
    return { data: await listKeyHints(accountScoped(store.db, accountId), modeOf(request)) };
  });

  app.post('/keys', async (request, reply) => {
    const { accountId } = requireOwner(request);
    const key = await changes.run('createApiKey', { accountId, mode: modeOf(request) });
    return reply.code(201).send(key);
  });

  app.post<{ Params: { id: string } }>('/keys/:id/revoke', async (request) => {
    const { accountId } = requireOwner(request);
    return changes.run('revokeApiKey', { keyId: request.params.id, accountId });
  });

  app.get('/numbers', async (request) => {
    const { accountId } = requireOwner(request);
    return { data: await listNumbers(scoped(store.db, { accountId, mode: modeOf(request) })) };
  });

  app.get('/opt-outs', async (request) => {
    const { accountId } = requireOwner(request);
    const scope = scoped(store.db, { accountId, mode: modeOf(request) });
    return { data: await listOptOutEntries(scope) };
  });

  app.get('/team', async (request) => {
    const { accountId } = requireOwner(request);
    return { data: await listTeam(accountScoped(store.db, accountId)) };
  });

  app.post<{ Body: Static<typeof InviteBody> }>(
    '/team',
    { schema: { body: InviteBody } },
    async (request, reply) => {
      const { accountId } = requireOwner(request);
      const { email, name, password, role } = request.body;
      if (password.length < MIN_PASSWORD_LENGTH) {
        throw validationError(
          'password',
          `password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
        );
      }
      const passwordHash = await hashPassword(password);
      const user = await changes.run('createUser', {
        accountId,
        email,
        name,
        role: role ?? 'member',
        passwordHash,
      });
      return reply.code(201).send(user);
    },
  );

  app.patch<{ Params: { id: string }; Body: Static<typeof TeammateBody> }>(
    '/team/:id',
    { schema: { body: TeammateBody } },
    async (request) => {
      const { accountId, user } = requireOwner(request);
      const { role, disabled, password } = request.body;
      if (password !== undefined && password.length < MIN_PASSWORD_LENGTH) {
        throw validationError(
          'password',
          `password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
        );
      }
      const passwordHash = password === undefined ? undefined : await hashPassword(password);
      return changes.run('updateTeammate', {
        accountId,
        byUserId: user.id,
        userId: request.params.id,
        role,
        disabled,
        passwordHash,
      });
    },
  );

  app.delete<{ Params: { id: string } }>('/team/:id', async (request) => {
    const { accountId, user } = requireOwner(request);
    return changes.run('removeTeammate', {
      accountId,
      byUserId: user.id,
      userId: request.params.id,
    });
  });

  app.put<{ Body: Static<typeof HelpBody> }>(
    '/settings/help-reply',
    { schema: { body: HelpBody } },
    async (request) => {
      const { accountId } = requireOwner(request);
      return changes.run('setHelpReply', { accountId, text: request.body.helpReply });
    },
  );

  app.get('/webhook-endpoints', async (request) => {
    const { accountId } = requireOwner(request);
    const scope = scoped(store.db, { accountId, mode: modeOf(request) });
    return { data: (await listWebhookEndpointPage(scope, 100)).data };
  });

  app.post<{ Body: Static<typeof EndpointBody> }>(
    '/webhook-endpoints',
    { schema: { body: EndpointBody } },
    async (request, reply) => {
      const { accountId } = requireOwner(request);
      const { url, events, description, enabled } = request.body;
      if (url === undefined) throw validationError('url', 'Missing required field url.');
      checkEventTypes(events ?? []);
      await checkEndpointUrl(url, deps);
      const endpoint = await changes.run('createWebhookEndpoint', {
        actor: { accountId, mode: modeOf(request) },
        input: { url, events: events ?? [], description: description ?? undefined, enabled },
      });
      return reply.code(201).send(endpoint);
    },
  );

  app.post<{ Params: { id: string }; Body: Static<typeof EndpointBody> }>(
    '/webhook-endpoints/:id',
    { schema: { body: EndpointBody } },
    async (request) => {
      const { accountId } = requireOwner(request);
      if (request.body.events !== undefined) checkEventTypes(request.body.events);
      if (request.body.url !== undefined) await checkEndpointUrl(request.body.url, deps);
      return changes.run('updateWebhookEndpoint', {
        actor: { accountId, mode: modeOf(request) },
        id: request.params.id,
        input: request.body,
      });
    },
  );

  app.post<{ Params: { id: string } }>('/webhook-endpoints/:id/rotate-secret', async (request) => {
    const { accountId } = requireOwner(request);
    return changes.run('rotateWebhookSecret', {
      actor: { accountId, mode: modeOf(request) },
      id: request.params.id,
    });
  });

  app.get<{ Params: { id: string } }>('/webhook-endpoints/:id/deliveries', async (request) => {
    const { accountId } = requireOwner(request);
    const scope = scoped(store.db, { accountId, mode: modeOf(request) });
    return loadDeliveryLog(scope, request.params.id, 50);
  });

  app.post<{ Params: { id: string; deliveryId: string } }>(
    '/webhook-endpoints/:id/deliveries/:deliveryId/retry',
    async (request, reply) => {
      const { accountId } = requireOwner(request);
      await changes.run('retryWebhookDelivery', {
        actor: { accountId, mode: modeOf(request) },
        endpointId: request.params.id,
        deliveryId: request.params.deliveryId,
      });
      return reply.code(202).send({ id: request.params.deliveryId, status: 'pending' });
    },
  );
}
