import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { loadCallHistory } from '../../queries/inbox.ts';
import { searchDirectory } from '../../queries/contacts.ts';
import { modeOf, sessionOf } from '../session-auth.ts';
import { scoped } from '../../store/scope.ts';

const Optional = Type.Optional(Type.Union([Type.String({ maxLength: 320 }), Type.Null()]));
const ContactBody = Type.Object(
  { phone: Type.String(), name: Optional, email: Optional, company: Optional },
  { additionalProperties: false },
);
const ContactPatch = Type.Object(
  { phone: Type.Optional(Type.String()), name: Optional, email: Optional, company: Optional },
  { additionalProperties: false },
);

const MergeBody = Type.Object(
  { duplicateId: Type.String({ maxLength: 64 }) },
  { additionalProperties: false },
);

const orUndefined = (v: string | null | undefined) => v ?? undefined;

/** The shared contact directory and the call history. */
export async function directoryRoutes(app: FastifyInstance): Promise<void> {
  const { store, changes } = app.deps;

  app.get<{ Querystring: { q?: string; mode?: string } }>('/contacts', async (request) => {
    const { accountId } = sessionOf(request);
    const scope = scoped(store.db, { accountId, mode: modeOf(request) });
    return { data: await searchDirectory(scope, 500, request.query.q?.trim() || undefined) };
  });

  app.post<{ Body: Static<typeof ContactBody> }>(
    '/contacts',
    { schema: { body: ContactBody } },
    async (request, reply) => {
      const { accountId } = sessionOf(request);
      const { phone, name, email, company } = request.body;
      const contact = await changes.run('createContact', {
        actor: { accountId, mode: modeOf(request) },
        input: {
          phone,
          name: orUndefined(name),
          email: orUndefined(email),
          company: orUndefined(company),
        },
      });
      return reply.code(201).send(contact);
    },
  );

  app.post<{ Params: { id: string }; Body: Static<typeof ContactPatch> }>(
    '/contacts/:id',
    { schema: { body: ContactPatch } },
    async (request) => {
      const { accountId } = sessionOf(request);
      return changes.run('updateContact', {
        actor: { accountId, mode: modeOf(request) },
        id: request.params.id,
        input: request.body,
      });
    },
  );

  app.delete<{ Params: { id: string } }>('/contacts/:id', async (request) => {
    const { accountId } = sessionOf(request);
    return changes.run('deleteContact', {
      actor: { accountId, mode: modeOf(request) },
      id: request.params.id,
    });
  });

  app.post<{ Params: { id: string }; Body: Static<typeof MergeBody> }>(
    '/contacts/:id/merge',
    { schema: { body: MergeBody } },
    async (request) => {
      const { accountId } = sessionOf(request);
      return changes.run('mergeContacts', {
        actor: { accountId, mode: modeOf(request) },
        keepId: request.params.id,
        duplicateId: request.body.duplicateId,
      });
    },
  );

  app.get('/calls', async (request) => {
    const { accountId } = sessionOf(request);
    return { data: await loadCallHistory(scoped(store.db, { accountId, mode: modeOf(request) })) };
  });
}
