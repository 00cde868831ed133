import type { FastifyInstance } from 'fastify';
import { getMessage } from '../../queries/get-message.ts';
import { principalOf } from '../plugins/auth.ts';
import { commitAndReply } from '../plugins/idempotency.ts';
import { ErrorBody, IdParams } from '../schemas/common.ts';
import { Message, SendMessageBody } from '../schemas/messages.ts';
import { scoped } from '../../store/scope.ts';

/** `POST /v1/messages` and `GET /v1/messages/{id}`. */
export async function messageRoutes(app: FastifyInstance): Promise<void> {
  const { store } = app.deps;

  app.post<{ Body: SendMessageBody }>(
    '/messages',
    {
      config: { keyCheckedByCommand: true },
      schema: {
        operationId: 'sendMessage',
        summary: 'Send a message',
        description:
          'Accepts an SMS or MMS for delivery (201 means accepted, not delivered). An array `to` opens a group; `conversationId` continues one, with `addParticipants`/`removeParticipants`. Opted-out recipients are refused (one-to-one) or dropped (group).',
        tags: ['Messages'],
        body: SendMessageBody,
        response: { 201: Message, '4xx': ErrorBody },
      },
    },
    (request, reply) =>
      commitAndReply(request, reply, 201, 'sendMessage', {
        actor: principalOf(request),
        input: request.body,
      }),
  );

  app.get<{ Params: { id: string } }>(
    '/messages/:id',
    {
      schema: {
        operationId: 'getMessage',
        summary: 'Retrieve a message',
        description:
          'The message as it is now: its `status` moves from `queued` to `sent` to `delivered` (or `failed`, with `failureReason`); a group message lists each participant.',
        tags: ['Messages'],
        params: IdParams,
        response: { 200: Message, '4xx': ErrorBody },
      },
    },
    async (request) => {
      return getMessage(scoped(store.db, principalOf(request)), request.params.id);
    },
  );
}
