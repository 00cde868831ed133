import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { parseDateTime } from '../../domain/date-time.ts';
import { checkEndpointUrl } from '../../commands/webhooks/endpoint-rules.ts';
import { checkEventTypes } from '../../commands/webhooks/endpoint-rules.ts';
import { webhookDeps } from '../../delivery/webhook-deps.ts';
import { loadDeliveryLog } from '../../queries/delivery-log.ts';
import { getWebhookEndpoint, listWebhookEndpointPage } from '../../queries/webhook-endpoints.ts';
import { principalOf } from '../plugins/auth.ts';
import { commitAndReply } from '../plugins/idempotency.ts';
import { ErrorBody, IdParams, NoBody } from '../schemas/common.ts';
import {
  CreateEndpointBody,
  DeletedEndpoint,
  ListOf,
  PageQuery,
  RecoverBody,
  TestEventBody,
  UpdateEndpointBody,
  WebhookDelivery,
  WebhookEndpoint,
} from '../schemas/webhooks.ts';
import { scoped } from '../../store/scope.ts';

const TAGS = ['Webhooks'];
const DeliveryParams = Type.Object({
  id: Type.String({ description: 'The webhook endpoint id (whe_…).' }),
  deliveryId: Type.String({ description: 'The delivery id (whd_…).' }),
});

function pageLimit(query: PageQuery): number {
  return query.limit ? Number(query.limit) : 20;
}

/** Webhook endpoints: create, list, retrieve, update, delete, rotate, delivery log, retry, recover, test. */
export async function webhookEndpointRoutes(app: FastifyInstance): Promise<void> {
  const { store, changes } = app.deps;
  const deps = webhookDeps(app.deps);

  app.post<{ Body: CreateEndpointBody }>(
    '/webhook_endpoints',
    {
      config: { keyCheckedByCommand: true },
      schema: {
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint',
        description: 'Returns the signing secret (whsec_…) once; deliveries are signed with it.',
        tags: TAGS,
        body: CreateEndpointBody,
        response: { 201: WebhookEndpoint, '4xx': ErrorBody },
      },
    },
    async (request, reply) => {
      // Validated before the write: resolving DNS must never hold the shared transaction.
      checkEventTypes(request.body.events);
      await checkEndpointUrl(request.body.url, deps);
      return commitAndReply(request, reply, 201, 'createWebhookEndpoint', {
        actor: principalOf(request),
        input: request.body,
      });
    },
  );

  app.get<{ Querystring: PageQuery }>(
    '/webhook_endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        description:
          'Oldest first, a page at a time: pass the last id of a page as `starting_after` for the next while `hasMore` is true. The secret is never included.',
        tags: TAGS,
        querystring: PageQuery,
        response: { 200: ListOf(WebhookEndpoint, 'WebhookEndpointList'), '4xx': ErrorBody },
      },
    },
    async (request) => {
      const { accountId, mode } = principalOf(request);
      const limit = pageLimit(request.query);
      const scope = scoped(store.db, { accountId, mode });
      return listWebhookEndpointPage(scope, limit, request.query.starting_after);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/webhook_endpoints/:id',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'Retrieve a webhook endpoint',
        description:
          'An endpoint, with whether it is enabled and why it was disabled; the secret is never included.',
        tags: TAGS,
        params: IdParams,
        response: { 200: WebhookEndpoint, '4xx': ErrorBody },
      },
    },
    async (request) => {
      const { accountId, mode } = principalOf(request);
      return getWebhookEndpoint(scoped(store.db, { accountId, mode }), request.params.id);
    },
  );

  app.post<{ Params: { id: string }; Body: UpdateEndpointBody }>(
    '/webhook_endpoints/:id',
    {
      config: { keyCheckedByCommand: true },
      schema: {
        operationId: 'updateWebhookEndpoint',
        summary: 'Update a webhook endpoint (url, events, description, enabled)',
        description:
          'Changes only the fields given; `enabled: true` turns an endpoint disabled for failures back on. A new `url` must pass the same checks as on creation.',
        tags: TAGS,
        params: IdParams,
        body: UpdateEndpointBody,
        response: { 200: WebhookEndpoint, '4xx': ErrorBody },
      },
    },
    async (request, reply) => {
      if (request.body.events !== undefined) checkEventTypes(request.body.events);
      if (request.body.url !== undefined) await checkEndpointUrl(request.body.url, deps);
      return commitAndReply(request, reply, 200, 'updateWebhookEndpoint', {
        actor: principalOf(request),
        id: request.params.id,
        input: request.body,
      });
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/webhook_endpoints/:id',
    {
      config: { keyCheckedByCommand: true },
      schema: {
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint',
        description: 'The endpoint gets no further deliveries; its delivery log stays readable.',
        tags: TAGS,
        params: IdParams,
        response: { 200: DeletedEndpoint, '4xx': ErrorBody },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return changes.run(
        'deleteWebhookEndpoint',
        { actor: principal, id: request.params.id },
        { apiKey: principal.keyHash },
      );
    },
  );

  app.post<{ Params: { id: string } }>(
    '/webhook_endpoints/:id/rotate_secret',
    {
      config: { keyCheckedByCommand: true },
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret',
        description:
          'Returns the new secret. The one it replaces keeps signing alongside it for 24 hours (two v1= signatures); rotating again within those hours ends the older one at once.',
        tags: TAGS,
        params: IdParams,
        body: NoBody,
        response: { 200: WebhookEndpoint, '4xx': ErrorBody },
      },
    },
    (request, reply) =>
      commitAndReply(request, reply, 200, 'rotateWebhookSecret', {
        actor: principalOf(request),
        id: request.params.id,
      }),
  );

  app.get<{ Params: { id: string }; Querystring: PageQuery }>(
    '/webhook_endpoints/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log of an endpoint',
        description:
          'Newest first; each delivery lists every attempt with time, status, latency and a response excerpt.',
        tags: TAGS,
        params: IdParams,
        querystring: PageQuery,
        response: { 200: ListOf(WebhookDelivery, 'WebhookDeliveryList'), '4xx': ErrorBody },
      },
    },
    async (request) => {
      const { accountId, mode } = principalOf(request);
      return loadDeliveryLog(
        scoped(store.db, { accountId, mode }),
        request.params.id,
        pageLimit(request.query),
        request.query.starting_after,
      );
    },
  );

  app.post<{ Params: { id: string; deliveryId: string } }>(
    '/webhook_endpoints/:id/deliveries/:deliveryId/retry',
    {
      config: { keyCheckedByCommand: true },
      schema: {
        operationId: 'retryWebhookDelivery',
        summary: 'Redeliver one event now',
        description:
          'Sends a delivery again, whatever became of it: the same `evt_` id and payload, with a fresh retry schedule and a new attempt in its log.',
        tags: TAGS,
        params: DeliveryParams,
        body: NoBody,
        response: { 202: WebhookDelivery, '4xx': ErrorBody },
      },
    },
    async (request, reply) => {
      // Through commitAndReply so an Idempotency-Key makes a retried call replay, not resend.
      return commitAndReply(request, reply, 202, 'retryWebhookDelivery', {
        actor: principalOf(request),
        endpointId: request.params.id,
        deliveryId: request.params.deliveryId,
      });
    },
  );

  app.post<{ Params: { id: string }; Body: RecoverBody }>(
    '/webhook_endpoints/:id/recover',
    {
      config: { keyCheckedByCommand: true },
      schema: {
        operationId: 'recoverWebhookEvents',
        summary: 'Redeliver every event since a time',
        description:
          'Every event since `since` (in the past) that the endpoint subscribes to is delivered again, or for the first time; answers how many.',
        tags: TAGS,
        params: IdParams,
        body: RecoverBody,
        response: {
          202: Type.Object(
            { object: Type.Literal('recovery'), count: Type.Integer() },
            { title: 'WebhookRecovery' },
          ),
          '4xx': ErrorBody,
        },
      },
    },
    (request, reply) =>
      commitAndReply(request, reply, 202, 'recoverWebhookEvents', {
        actor: principalOf(request),
        endpointId: request.params.id,
        since: parseDateTime(request.body.since),
      }),
  );

  app.post<{ Params: { id: string }; Body: TestEventBody }>(
    '/webhook_endpoints/:id/test',
    {
      config: { keyCheckedByCommand: true },
      schema: {
        operationId: 'sendWebhookTestEvent',
        summary: 'Send a signed test event to this endpoint',
        description:
          'Delivers an imitation of an event of the catalog (`message.received` by default), signed like any other, and answers its delivery.',
        tags: TAGS,
        params: IdParams,
        body: TestEventBody,
        response: { 202: WebhookDelivery, '4xx': ErrorBody },
      },
    },
    async (request, reply) => {
      const type = request.body.type ?? 'message.received';
      // Through commitAndReply so an Idempotency-Key makes a retried call replay, not resend.
      return commitAndReply(request, reply, 202, 'sendWebhookTestEvent', {
        actor: principalOf(request),
        endpointId: request.params.id,
        type,
      });
    },
  );
}
