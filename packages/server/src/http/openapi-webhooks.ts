import { Type, type TSchema } from '@sinclair/typebox';
import type { EventType } from '../commands/record-event.ts';
import type { Json } from './openapi-schemas.ts';
import { DateTime } from './schemas/common.ts';
import { Contact } from './schemas/contacts.ts';
import { Call, Message } from './schemas/messages.ts';

/** Each event of the catalog (spec 6.1): when it fires, and the schema of its `data`. */
const CATALOG: Record<EventType, { title: string; fires: string; data: TSchema }> = {
  'message.received': {
    title: 'MessageReceivedEvent',
    fires:
      "An inbound SMS or MMS arrived on one of the account's numbers, STOP/START/HELP and group replies included.",
    data: Message,
  },
  'message.delivered': {
    title: 'MessageDeliveredEvent',
    fires:
      'The carrier confirmed an outbound message reached the handset (for a group, one participant: `to`).',
    data: Message,
  },
  'message.failed': {
    title: 'MessageFailedEvent',
    fires:
      'An outbound message could not be delivered; `failureReason` says why (invalid_number, carrier_rejected, opted_out, unreachable).',
    data: Message,
  },
  'call.completed': {
    title: 'CallCompletedEvent',
    fires: 'A call ended: answered, or an outbound call nobody answered (`status` missed).',
    data: Call,
  },
  'call.missed': {
    title: 'CallMissedEvent',
    fires: 'An inbound call rang out unanswered on every device.',
    data: Call,
  },
  'contact.created': {
    title: 'ContactCreatedEvent',
    fires: 'A contact was created.',
    data: Contact,
  },
};

/** Headers of every delivery (docs/behaviour.md#signature, docs/webhook-test-vectors.md). */
const SIGNATURE_HEADERS: Json[] = [
  {
    name: 'X-Service-Signature',
    description:
      '`t=<unix seconds>,v1=<hex>`: HMAC-SHA256 of `<t>.<raw body>` keyed with the whole `whsec_` secret; one `v1=` per valid secret during a rotation.',
  },
  { name: 'webhook-id', description: 'The event id (`evt_…`), the same on every retry.' },
  { name: 'webhook-timestamp', description: 'Unix seconds of this attempt (Standard Webhooks).' },
  {
    name: 'webhook-signature',
    description:
      '`v1,<base64>` per valid secret (Standard Webhooks, keyed with the decoded secret).',
  },
].map((header) => ({ ...header, in: 'header', required: true, schema: { type: 'string' } }));

/**
 * The `webhooks` of the OpenAPI document: what Switchboard POSTs to an endpoint for
 * each event type, so a receiver can be generated or checked from the same
 * description as the API. `named` turns a titled schema into a component reference.
 */
export function describeWebhooks(named: (schema: unknown) => unknown): Json {
  return Object.fromEntries(
    Object.entries(CATALOG).map(([type, { title, fires, data }]) => {
      const envelope = Type.Object(
        {
          id: Type.String({ description: 'The event id (evt_…); deduplicate by it.' }),
          type: Type.Literal(type),
          createdAt: DateTime,
          data,
        },
        { title, description: fires },
      );
      const operation = {
        operationId: title.replace(/^./, (c) => c.toLowerCase()),
        summary: type,
        description: `${fires} Answer with a 2xx quickly; anything else but a 410 (which disables the endpoint) is retried for about three days.`,
        tags: ['Webhook events'],
        security: [],
        parameters: SIGNATURE_HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: named(envelope) } },
        },
        responses: { '2XX': { description: 'Received; no retry.' } },
      };
      return [type, { post: operation }];
    }),
  );
}
