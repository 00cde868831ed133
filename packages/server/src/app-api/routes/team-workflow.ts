import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { TeamActor } from '../../commands/team-context.ts';
import type { Viewer } from '../../queries/team-inbox.ts';
import { loadTeammates } from '../../queries/team-inbox.ts';
import { accountScoped } from '../../store/scope.ts';
import { modeOf, sessionOf } from '../session-auth.ts';

/** The signed-in teammate as the team commands act for them. */
export function teamActorOf(request: FastifyRequest): TeamActor {
  const { accountId, user } = sessionOf(request);
  return { accountId, mode: modeOf(request), userId: user.id, userName: user.name };
}

/** The signed-in teammate as the inbox's reads count for them. */
export function viewerOf(request: FastifyRequest): Viewer {
  const { user } = sessionOf(request);
  return { userId: user.id, joinedAt: user.created_at };
}

const StatusBody = Type.Object({ status: Type.String() }, { additionalProperties: false });
const AssignBody = Type.Object(
  { assigneeId: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]) },
  { additionalProperties: false },
);
const NoteBody = Type.Object(
  { body: Type.String({ maxLength: 16_000 }) },
  { additionalProperties: false },
);
type Id = { Params: { id: string } };

/** How a team shares the inbox: open/done, assignment, own unread marks and internal notes. */
export async function teamWorkflowRoutes(app: FastifyInstance): Promise<void> {
  const { store, changes } = app.deps;

  app.get('/teammates', async (request) => {
    const { accountId } = sessionOf(request);
    return { data: await loadTeammates(accountScoped(store.db, accountId)) };
  });

  app.post<Id>('/conversations/:id/unread', async (request) =>
    changes.run('markConversationUnread', {
      actor: teamActorOf(request),
      id: request.params.id,
    }),
  );

  app.post<Id & { Body: Static<typeof StatusBody> }>(
    '/conversations/:id/status',
    { schema: { body: StatusBody } },
    async (request) =>
      changes.run('setConversationStatus', {
        actor: teamActorOf(request),
        id: request.params.id,
        status: request.body.status,
      }),
  );

  app.post<Id & { Body: Static<typeof AssignBody> }>(
    '/conversations/:id/assignee',
    { schema: { body: AssignBody } },
    async (request) =>
      changes.run('assignConversation', {
        actor: teamActorOf(request),
        id: request.params.id,
        assigneeId: request.body.assigneeId,
      }),
  );

  app.post<Id & { Body: Static<typeof NoteBody> }>(
    '/conversations/:id/notes',
    { schema: { body: NoteBody } },
    async (request, reply) => {
      const note = await changes.run('addConversationNote', {
        actor: teamActorOf(request),
        id: request.params.id,
        body: request.body.body,
      });
      return reply.code(201).send(note);
    },
  );
}
