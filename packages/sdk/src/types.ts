// Wire shapes of API requests, API responses and webhook payloads. Timestamps are ISO 8601 UTC
// strings, numbers are E.164, and nullable fields are present with `null` rather than left out.

import type { WebhookEventType } from './webhooks/events.ts';

/** Which way a message or call went, seen from the account's number. */
export type Direction = 'inbound' | 'outbound';

/** Every status a message, or a participant of a group message, can be in. */
export const MESSAGE_STATUSES = ['queued', 'sent', 'delivered', 'failed'] as const;

/** `queued` → `sent` → `delivered`, or `failed`. */
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** The `failureReason` codes known today; new ones may be added without a new API version. */
export const FAILURE_REASONS = [
  'invalid_number',
  'carrier_rejected',
  'opted_out',
  'unreachable',
] as const;

/** A known `failureReason` code; compare against these, but expect others. */
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** One attachment of an MMS as the service stored it. */
export interface MessageMedia {
  url: string;
  contentType: string;
  /** Bytes, on inbound media the service fetched (null when it could not tell). */
  size?: number | null;
  /** False on an inbound item the service did not keep; `reason` says why. */
  kept?: false;
  reason?: string;
}

/** A group participant and how far the message got to them. */
export interface Participant {
  phone: string;
  status: MessageStatus;
}

/** A text message, sent or received (spec 2.1 with the fields of docs/behaviour.md#messages). */
export interface Message {
  /** `msg_…` */
  id: string;
  object: 'message';
  from: string;
  /** One recipient, or the current participants of a group. */
  to: string | string[];
  body: string;
  direction: Direction;
  status: MessageStatus;
  segments: number;
  /** `cv_…`; every thread has one, one-to-one threads included. */
  conversationId: string;
  media: MessageMedia[];
  /** The URLs given when sending an MMS. */
  mediaUrls?: string[];
  /** Inbox label for who sent it; null means the `from` number alone. */
  senderName: string | null;
  /** Set on failed messages: one of {@link FAILURE_REASONS} or a newer code. */
  failureReason: string | null;
  /** Present on group messages. */
  participants?: Participant[];
  createdAt: string;
}

/** The `data` of call events: who called whom, when, and for how long. */
export interface CallSummary {
  /** `call_…` */
  id: string;
  from: string;
  to: string;
  direction: Direction;
  status: 'completed' | 'missed';
  startedAt: string;
  /** Whole seconds; 0 for a missed call. */
  duration: number;
}

/** An entry of the shared directory used for caller ID. */
export interface Contact {
  /** `ct_…` */
  id: string;
  object: 'contact';
  name: string | null;
  phone: string;
  email: string | null;
  company: string | null;
  createdAt: string;
}

/** A call as `POST /v1/sandbox/calls` answers it: the call summary with its type tag. */
export interface Call extends CallSummary {
  object: 'call';
}

/** A URL the service signs and POSTs events to (spec 2.5). */
export interface WebhookEndpoint {
  /** `whe_…` */
  id: string;
  object: 'webhook_endpoint';
  url: string;
  events: WebhookEventType[];
  /** False once disabled by the caller, by a `410 Gone` answer or after 5 days of failures. */
  enabled: boolean;
  description: string | null;
  /** Why the service disabled the endpoint, when it did. */
  disabledReason: string | null;
  createdAt: string;
  /** `whsec_…`; present only in the answers of create and rotate, so store it then. */
  secret?: string;
}

/** What deleting an endpoint answers; its delivery log stays readable by id. */
export interface DeletedWebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  deleted: true;
}

/** One HTTP attempt of a delivery, as the delivery log records it. */
export interface WebhookAttempt {
  attemptedAt: string;
  /** Null when no HTTP answer came (refused connection, timeout). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBodyExcerpt: string | null;
}

/** One event on its way to one endpoint, with every attempt so far. */
export interface WebhookDelivery {
  /** `whd_…` */
  id: string;
  object: 'webhook_delivery';
  endpointId: string;
  /** The `evt_…` id, the same on every attempt and redelivery. */
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  createdAt: string;
  attempts: WebhookAttempt[];
}

/** What `recover` answers: how many events were queued for redelivery. */
export interface WebhookRecovery {
  object: 'recovery';
  count: number;
}

/** One page of a cursor-paginated list, newest first. */
export interface ListPage<T> {
  object: 'list';
  data: T[];
  /** True when another page follows; pass the last item's id as `startingAfter` to get it. */
  hasMore: boolean;
}

/** Cursor pagination of list calls. */
export interface ListParams {
  /** 1 to 100; the server's default is 20. */
  limit?: number;
  /** An id from the previous page: the page starts after it (sent as `starting_after`). */
  startingAfter?: string;
}

/** Body of `POST /v1/messages` (spec 2.2). */
export interface SendMessageInput {
  /** A number provisioned on the account. */
  from: string;
  /** One recipient, or up to 10 (two or more open a group). Omit with `conversationId`. */
  to?: string | string[];
  /** 1 to 1600 characters after trimming; may be omitted when `mediaUrls` is given. */
  body?: string;
  /** Up to 10 public `https://` URLs; they make the message an MMS. */
  mediaUrls?: string[];
  /** Who sent it, as the shared inbox shows it. */
  senderName?: string;
  /** Continue this group conversation (`cv_…`). */
  conversationId?: string;
  addParticipants?: string[];
  removeParticipants?: string[];
}

/** Body of `POST /v1/contacts` (spec 2.4). */
export interface CreateContactInput {
  phone: string;
  name?: string;
  email?: string;
  company?: string;
}

/** Body of `POST /v1/webhook_endpoints`. */
export interface CreateWebhookEndpointInput {
  /** `https://` at a public address (the server may allow private `http://` in development). */
  url: string;
  events: WebhookEventType[];
  description?: string;
  enabled?: boolean;
}

/** Body of `POST /v1/webhook_endpoints/{id}`: only the fields given change. */
export interface UpdateWebhookEndpointInput {
  url?: string;
  events?: WebhookEventType[];
  /** `null` clears it. */
  description?: string | null;
  enabled?: boolean;
}

/** Body of `POST /v1/webhook_endpoints/{id}/recover`. */
export interface RecoverWebhookEventsInput {
  /** Redeliver every subscribed event since then (a `Date` is sent as ISO 8601). */
  since: string | Date;
}

/** Body of `POST /v1/webhook_endpoints/{id}/test`. */
export interface SendTestEventInput {
  /** Which event type to imitate; `message.received` by default. */
  type?: WebhookEventType;
}

/** Body of `POST /v1/sandbox/inbound`: a text as a carrier would hand it over (test keys only). */
export interface SandboxInboundInput {
  /** Any E.164 number: the sender. */
  from: string;
  /** One of the account's test numbers. */
  to: string;
  body?: string;
  mediaUrls?: string[];
  /** Deliver it as a reply in this group conversation. */
  conversationId?: string;
}

/** Body of `POST /v1/sandbox/calls`: an ended call as telephony reports it (test keys only). */
export interface SandboxCallInput {
  from: string;
  to: string;
  direction?: Direction;
  outcome: 'completed' | 'missed';
  /** Whole seconds, 0 to 86400. */
  duration?: number;
}

export type {
  CallCompletedEvent,
  CallMissedEvent,
  ContactCreatedEvent,
  MessageDeliveredEvent,
  MessageFailedEvent,
  MessageReceivedEvent,
  WebhookEvent,
  WebhookEventOf,
  WebhookEventType,
} from './webhooks/events.ts';
