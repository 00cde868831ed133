import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable } from './common.ts';

const EventList = Type.Array(Type.String(), {
  minItems: 1,
  maxItems: 20,
  description:
    'Event types: message.received, message.delivered, message.failed, call.completed, call.missed, contact.created.',
});

/** Body of `POST /v1/webhook_endpoints`. */
export const CreateEndpointBody = Type.Object(
  {
    url: Type.String({
      maxLength: 2048,
      description: 'An https:// URL that resolves to a public address.',
    }),
    events: EventList,
    description: Type.Optional(Type.String({ maxLength: 500 })),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'WebhookEndpointCreate' },
);
export type CreateEndpointBody = Static<typeof CreateEndpointBody>;

/** Body of `POST /v1/webhook_endpoints/{id}` (update). */
export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Type.String({ maxLength: 2048 })),
    events: Type.Optional(EventList),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'WebhookEndpointUpdate' },
);
export type UpdateEndpointBody = Static<typeof UpdateEndpointBody>;

/** A webhook endpoint (spec 2.5). */
export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ description: 'Prefix whe_.' }),
    object: Type.Literal('webhook_endpoint'),
    url: Type.String(),
    events: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    description: Nullable(Type.String()),
    disabledReason: Nullable(Type.String()),
    createdAt: DateTime,
    secret: Type.Optional(
      Type.String({ description: 'whsec_…; returned only on creation and rotation.' }),
    ),
  },
  { title: 'WebhookEndpoint' },
);

/** A deleted endpoint. */
export const DeletedEndpoint = Type.Object(
  { id: Type.String(), object: Type.Literal('webhook_endpoint'), deleted: Type.Literal(true) },
  { title: 'DeletedWebhookEndpoint' },
);

/** A page of a list. */
export function ListOf<T extends ReturnType<typeof Type.Object>>(item: T, title: string) {
  return Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(item),
      hasMore: Type.Boolean(),
    },
    { title },
  );
}

/** Cursor pagination: `limit` (1–100) and `starting_after` (an id from the previous page). */
export const PageQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.String({
        pattern: '^(100|[1-9][0-9]?)$',
        description: 'How many items a page holds: 1 to 100 (20 by default).',
      }),
    ),
    starting_after: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'The id of the last item of the previous page; this page starts after it.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuery>;

/** One attempt in a delivery log. */
export const WebhookAttempt = Type.Object({
  attemptedAt: DateTime,
  statusCode: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  durationMs: Type.Integer(),
  responseBodyExcerpt: Nullable(Type.String()),
});

/** A delivery of one event to one endpoint. */
export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'Prefix whd_.' }),
    object: Type.Literal('webhook_delivery'),
    endpointId: Type.String(),
    eventId: Type.String({ description: 'The evt_ id, the same on every attempt.' }),
    eventType: Type.String(),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('succeeded'),
      Type.Literal('failed'),
    ]),
    attemptCount: Type.Integer(),
    nextAttemptAt: Nullable(DateTime),
    lastStatusCode: Nullable(Type.Integer()),
    createdAt: DateTime,
    attempts: Type.Array(WebhookAttempt),
  },
  { title: 'WebhookDelivery' },
);

/** Body of `POST /v1/webhook_endpoints/{id}/recover`. */
export const RecoverBody = Type.Object(
  { since: Type.String({ format: 'date-time', description: 'Redeliver every event since then.' }) },
  { additionalProperties: false, title: 'WebhookRecover' },
);
export type RecoverBody = Static<typeof RecoverBody>;

/** Body of `POST /v1/webhook_endpoints/{id}/test`. */
export const TestEventBody = Type.Object(
  {
    type: Type.Optional(
      Type.String({ description: 'Which event type to imitate; message.received by default.' }),
    ),
  },
  { additionalProperties: false, title: 'WebhookTestEvent' },
);
export type TestEventBody = Static<typeof TestEventBody>;
