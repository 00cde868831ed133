import type { FastifyInstance } from 'fastify';
import { getContact } from '../../queries/contacts.ts';
import { principalOf } from '../plugins/auth.ts';
import { commitAndReply } from '../plugins/idempotency.ts';
import { ErrorBody, IdParams } from '../schemas/common.ts';
import { Contact, CreateContactBody } from '../schemas/contacts.ts';
import { scoped } from '../../store/scope.ts';

/** `POST /v1/contacts` and `GET /v1/contacts/{id}`. */
export async function contactRoutes(app: FastifyInstance): Promise<void> {
  const { store } = app.deps;

  app.post<{ Body: CreateContactBody }>(
    '/contacts',
    {
      config: { keyCheckedByCommand: true },
      schema: {
        operationId: 'createContact',
        summary: 'Create a contact',
        description:
          'Adds a contact to the shared directory; its name becomes the caller ID of its number. Emits `contact.created`.',
        tags: ['Contacts'],
        body: CreateContactBody,
        response: { 201: Contact, '4xx': ErrorBody },
      },
    },
    (request, reply) =>
      commitAndReply(request, reply, 201, 'createContact', {
        actor: principalOf(request),
        input: request.body,
      }),
  );

  app.get<{ Params: { id: string } }>(
    '/contacts/:id',
    {
      schema: {
        operationId: 'getContact',
        summary: 'Retrieve a contact',
        description: 'A contact of the directory, by its id (ct_…).',
        tags: ['Contacts'],
        params: IdParams,
        response: { 200: Contact, '4xx': ErrorBody },
      },
    },
    async (request) => {
      const { accountId, mode } = principalOf(request);
      return getContact(scoped(store.db, { accountId, mode }), request.params.id);
    },
  );
}
