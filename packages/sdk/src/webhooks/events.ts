import type { CallSummary, Contact, Message } from '../types.ts';

/** Every event type of the catalog (spec 6.1), for subscribing and for exhaustive switches. */
export const WEBHOOK_EVENT_TYPES = [
  'message.received',
  'message.delivered',
  'message.failed',
  'call.completed',
  'call.missed',
  'contact.created',
] as const;

/** One of {@link WEBHOOK_EVENT_TYPES}. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The envelope every delivery shares; `id` is the same on every retry, so dedupe on it. */
interface Envelope<T extends WebhookEventType, D> {
  /** `evt_…` */
  id: string;
  type: T;
  createdAt: string;
  data: D;
}

/** An inbound SMS or MMS, STOP/START/HELP keywords and group replies included. */
export type MessageReceivedEvent = Envelope<
  'message.received',
  Message & { direction: 'inbound'; status: 'delivered' }
>;

/** The carrier confirmed an outbound message reached the handset. */
export type MessageDeliveredEvent = Envelope<
  'message.delivered',
  Message & { direction: 'outbound'; status: 'delivered' }
>;

/** An outbound message could not be delivered; `data.failureReason` says why. */
export type MessageFailedEvent = Envelope<
  'message.failed',
  Message & { direction: 'outbound'; status: 'failed'; failureReason: string }
>;

/**
 * A call ended: answered (`status` `completed`), or an outbound call nobody answered
 * (`status` `missed`, `direction` `outbound`).
 */
export type CallCompletedEvent = Envelope<'call.completed', CallSummary>;

/** An inbound call rang out unanswered on every device. */
export type CallMissedEvent = Envelope<
  'call.missed',
  CallSummary & { direction: 'inbound'; status: 'missed' }
>;

/** A contact was created through the API or a synced form. */
export type ContactCreatedEvent = Envelope<'contact.created', Contact>;

/** Any webhook delivery; narrow on `type` before reading `data`. */
export type WebhookEvent =
  | MessageReceivedEvent
  | MessageDeliveredEvent
  | MessageFailedEvent
  | CallCompletedEvent
  | CallMissedEvent
  | ContactCreatedEvent;

/** The event for one `type`, e.g. `WebhookEventOf<'call.missed'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;
