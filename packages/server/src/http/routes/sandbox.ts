import type { FastifyInstance, FastifyRequest } from 'fastify';
import { webhookDispatcher } from '../../delivery/guarded-dispatcher.ts';
import { ApiError } from '../../domain/errors.ts';
import { checkMediaUrls } from '../../domain/message-rules.ts';
import { ingestMedia } from '../media/ingest-media.ts';
import { principalOf } from '../plugins/auth.ts';
import { commitAndReply } from '../plugins/idempotency.ts';
import { ErrorBody } from '../schemas/common.ts';
import {
  Call,
  Message,
  SandboxCallBody,
  SandboxInboundBody,
  SandboxRingBody,
  SandboxRinging,
} from '../schemas/messages.ts';
import { Type } from '@sinclair/typebox';
import { ringSoftphones } from './sandbox-ring.ts';

/** The sandbox exists only for test keys; to a live key it is not there at all. */
function requireTestMode(request: FastifyRequest): void {
  if (principalOf(request).mode !== 'test') {
    throw new ApiError('not_found', `No route for ${request.method} ${request.url}.`);
  }
}

/** `POST /v1/sandbox/inbound` and `POST /v1/sandbox/calls`: what the carrier would report, on demand. */
export async function sandboxRoutes(app: FastifyInstance): Promise<void> {
  const { secrets, config, clock } = app.deps;
  const dispatcher = webhookDispatcher({ allowPrivate: config.webhookAllowPrivate });
  app.addHook('onClose', async () => dispatcher.close());
  app.post<{ Body: SandboxInboundBody }>(
    '/sandbox/inbound',
    {
      config: { keyCheckedByCommand: true },
      schema: {
        operationId: 'sandboxInbound',
        summary: 'Simulate an inbound text (test keys only)',
        description:
          'Handled exactly as a carrier-delivered text: threading, caller ID, opt-out keywords and `message.received`.',
        tags: ['Sandbox'],
        body: SandboxInboundBody,
        // 404 to a live key, for which the sandbox does not exist.
        response: { 201: Message, 404: ErrorBody, '4xx': ErrorBody },
      },
    },
    async (request, reply) => {
      requireTestMode(request);
      const { accountId } = principalOf(request);
      // Media are fetched and checked as a carrier's inbound MMS's are, before the text arrives;
      // plain http:// only where private addresses are allowed (local tests).
      const urls = checkMediaUrls(request.body.mediaUrls, {
        allowHttp: config.webhookAllowPrivate,
      });
      const { media, keep } = await ingestMedia({ secrets, config, clock, dispatcher }, urls);
      return commitAndReply(request, reply, 201, 'receiveMessage', {
        input: { ...request.body, mode: 'test', mediaUrls: [], media, keep },
        accountId,
      });
    },
  );

  app.post<{ Body: SandboxCallBody | SandboxRingBody }>(
    '/sandbox/calls',
    {
      config: { keyCheckedByCommand: true },
      schema: {
        operationId: 'sandboxCall',
        summary: 'Simulate a call (test keys only)',
        description:
          "Records an ended call and emits `call.completed` or `call.missed`; with `ring: true` (voice on), rings the account's softphones with a real call instead, recorded when it ends (unanswered: `call.missed`).",
        tags: ['Sandbox'],
        body: Type.Union([SandboxCallBody, SandboxRingBody]),
        response: { 201: Call, 202: SandboxRinging, 404: ErrorBody, '4xx': ErrorBody },
      },
    },
    (request, reply) => {
      requireTestMode(request);
      const body = request.body;
      if ('ring' in body) return ringSoftphones(request, reply, body);
      return commitAndReply(request, reply, 201, 'recordCall', {
        actor: principalOf(request),
        input: body,
      });
    },
  );
}
