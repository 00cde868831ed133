// Wire shapes shared by webhook payloads and API responses. Timestamps are ISO 8601 UTC strings,
// numbers are E.164, and nullable fields are present with `null` rather than left out.

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
}

/** A group participant and how far the message got to them. */
export interface Participant {
  phone: string;
  status: MessageStatus;
}

/** A text message, sent or received (spec 2.1 with the fields the decisions add). */
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
