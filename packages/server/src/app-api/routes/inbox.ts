import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { loadTeamConversation, loadTeamInbox } from '../../queries/team-inbox.ts';
import { teamActorOf, viewerOf } from './team-workflow.ts';
import { validationError } from '../../domain/errors.ts';
import { findRecordedResponse, idempotentRequest } from '../../commands/idempotency.ts';
import { optedOutRecipients } from '../../queries/inbox.ts';
import { modeOf, sessionOf } from '../session-auth.ts';
import { scoped } from '../../store/scope.ts';

const HEADER = 'Idempotency-Key';

const ComposeBody = Type.Object(
  {
    from: Type.String(),
    to: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 10 })])),
    conversationId: Type.Optional(Type.String({ maxLength: 64 })),
    body: Type.Optional(Type.String({ maxLength: 6400 })),
    mediaUrls: Type.Optional(Type.Array(Type.String(), { maxItems: 10 })),
  },
  { additionalProperties: false },
);

/** The shared inbox: conversations, a thread, marking read, and the composer. */
export async function inboxRoutes(app: FastifyInstance): Promise<void> {
  const { store, changes, clock, secrets } = app.deps;
  const open = (sealed: string) => secrets.open(sealed);

  app.get('/conversations', async (request) => {
    const { accountId } = sessionOf(request);
    const scope = scoped(store.db, { accountId, mode: modeOf(request) });
    return { data: await loadTeamInbox(scope, viewerOf(request)) };
  });

  app.get<{ Params: { id: string } }>('/conversations/:id', async (request) => {
    const { accountId } = sessionOf(request);
    const scope = scoped(store.db, { accountId, mode: modeOf(request) });
    return loadTeamConversation(scope, viewerOf(request), request.params.id);
  });

  app.get<{ Querystring: { phones?: string } }>('/opted-out', async (request) => {
    const { accountId } = sessionOf(request);
    const phones = (request.query.phones ?? '').split(',').filter((p) => p !== '');
    if (phones.length > 10) throw validationError('phones', 'Ask about 10 numbers at most.');
    const scope = scoped(store.db, { accountId, mode: modeOf(request) });
    return { data: await optedOutRecipients(scope, phones) };
  });

  app.post<{ Params: { id: string } }>('/conversations/:id/read', async (request) => {
    return changes.run('markConversationRead', {
      actor: teamActorOf(request),
      id: request.params.id,
    });
  });

  // The composer sends through the same command as POST /v1/messages: the same
  // validation, opt-out rules and carrier path, attributed to the signed-in user.
  app.post<{ Body: Static<typeof ComposeBody> }>(
    '/messages',
    { schema: { body: ComposeBody } },
    async (request, reply) => {
      const { accountId, user } = sessionOf(request);
      const actor = { accountId, mode: modeOf(request) };
      const input = { actor, input: { ...request.body, senderName: user.name } };
      // A text queued offline is sent with the key it was given when typed, so however many
      // times the outbox retries it, it goes out once (docs/behaviour.md#offline).
      const key = request.headers['idempotency-key'];
      if (key === undefined) return reply.code(201).send(await changes.run('sendMessage', input));
      const idempotency = idempotentRequest(key, HEADER, 'POST', '/app/api/messages', request.body);
      const recorded = await findRecordedResponse(store.db, actor, idempotency, HEADER, {
        clock,
        open,
      });
      const outcome = recorded
        ? ({ replayed: true, ...recorded } as const)
        : await changes.runIdempotently('sendMessage', input, {
            actor,
            request: idempotency,
            param: HEADER,
            statusCode: 201,
          });
      if (!outcome.replayed) return reply.code(201).send(outcome.body);
      return reply
        .code(outcome.statusCode)
        .header('idempotent-replayed', 'true')
        .type('application/json')
        .send(outcome.body);
    },
  );
}
