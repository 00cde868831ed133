// The shapes the softphone API (`/app/api`) answers with; see packages/server/src/presenters.

/** Test and live are separate worlds; the app shows one at a time. */
export type Mode = 'test' | 'live';

/** Where a message is on its way to the handset. */
export type MessageStatus = 'queued' | 'sent' | 'delivered' | 'failed';

/** A team member's role: owners also see the dashboard. */
export type Role = 'owner' | 'member';

/** A media attachment of an MMS. */
export interface Media {
  url: string;
  contentType: string;
}

/** A participant of a group send and how far the message got to them. */
export interface ParticipantStatus {
  phone: string;
  status: MessageStatus;
}

/** A text or MMS, inbound or outbound. */
export interface Message {
  id: string;
  object: 'message';
  from: string;
  to: string | string[];
  body: string;
  direction: 'inbound' | 'outbound';
  status: MessageStatus;
  segments: number;
  conversationId: string;
  media: Media[];
  senderName: string | null;
  failureReason: string | null;
  participants?: ParticipantStatus[];
  createdAt: string;
}

/** The other party (or one of the parties) of a conversation, with its caller-ID name. */
export interface Party {
  phone: string;
  name: string | null;
  active: boolean;
}

/** A thread of the shared inbox: one account number and one or several other parties. */
export interface Conversation {
  id: string;
  kind: 'direct' | 'group';
  accountPhone: string;
  participants: Party[];
  lastMessage: Message | null;
  lastMessageAt: string;
  unreadCount: number;
}

/** A row of the call history. */
export interface Call {
  id: string;
  from: string;
  to: string;
  direction: 'inbound' | 'outbound';
  status: 'completed' | 'missed';
  startedAt: string;
  duration: number;
  contactName: string | null;
}

/** An entry of the shared directory; its name is the caller ID of its phone. */
export interface Contact {
  id: string;
  object: 'contact';
  name: string | null;
  phone: string;
  email: string | null;
  company: string | null;
  createdAt: string;
}

/** The signed-in person. */
export interface User {
  id: string;
  email: string;
  name: string;
  role: Role;
}

/** Everything the app needs to know about who is signed in (`GET /app/api/me`). */
export interface Me {
  user: User;
  account: { id: string; name: string; helpReply: string | null };
  numbers: Record<Mode, string[]>;
  csrfToken: string;
}

/** A list answer of the API. */
export interface ListOf<T> {
  data: T[];
}

/** An API key as the dashboard lists it: never its secret. */
export interface ApiKey {
  id: string;
  mode: Mode;
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** A key just made: the only time its secret is seen. */
export interface CreatedApiKey {
  id: string;
  mode: Mode;
  secret: string;
  createdAt: string;
}

/** A number of the account. */
export interface PhoneNumber {
  id: string;
  phone: string;
  createdAt: string;
}

/** A number that texted STOP. */
export interface OptOut {
  phone: string;
  optedOutAt: string;
}

/** A team member as the dashboard lists them. */
export interface TeamMember {
  id: string;
  email: string;
  name: string;
  role: Role;
  createdAt: string;
}

/** A webhook endpoint; `secret` is present only right after creating or rotating. */
export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  disabledReason: string | null;
  createdAt: string;
  secret?: string;
}

/** One HTTP attempt of a delivery. */
export interface WebhookAttempt {
  attemptedAt: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBodyExcerpt: string | null;
}

/** One event sent (or being sent) to one endpoint, with every attempt. */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  createdAt: string;
  attempts: WebhookAttempt[];
}

/** What the realtime channel pushes. */
export type Push =
  | { type: 'hello'; mode: Mode }
  | { type: 'message.created'; message: Message; contactName?: string | null }
  | { type: 'message.updated'; message: Message }
  | { type: 'call.created'; call: Omit<Call, 'contactName'>; contactName: string | null }
  | { type: 'contact.changed'; contact: Contact }
  | { type: 'conversation.read'; conversationId: string };

/** The event types a webhook endpoint can subscribe to (spec 6.1). */
export const WEBHOOK_EVENT_TYPES = [
  'message.received',
  'message.delivered',
  'message.failed',
  'call.completed',
  'call.missed',
  'contact.created',
] as const;
