// The shapes only the softphone API (`/app/api`) answers with; see packages/server/src/presenters.
// The API resources it shares with the public API (messages, contacts, calls, webhook endpoints
// and deliveries) are the SDK's types, so the two cannot drift apart.

import type { Call, Contact, Message } from '@switchboard/sdk';

/** Test and live are separate worlds; the app shows one at a time. */
export type Mode = 'test' | 'live';

/** A team member's role: owners also see the dashboard. */
export type Role = 'owner' | 'member';

/** The other party (or one of the parties) of a conversation, with its caller-ID name. */
export interface Party {
  phone: string;
  name: string | null;
  active: boolean;
  /** Texted STOP: nothing can be sent to it until it texts START. */
  optedOut: boolean;
}

/** A thread of the shared inbox: one account number and one or several other parties. */
export interface Conversation {
  id: string;
  kind: 'direct' | 'group';
  accountPhone: string;
  participants: Party[];
  lastMessage: Message | null;
  lastMessageAt: string;
  /** The signed-in user's own count: what each teammate has read is their own. */
  unreadCount: number;
  status: 'open' | 'done';
  assigneeId: string | null;
}

/** An internal note in a thread: the team's only, never sent as a text. */
export interface Note {
  id: string;
  conversationId: string;
  author: { id: string; name: string };
  body: string;
  /** The ids of the teammates it @mentions. */
  mentions: string[];
  createdAt: string;
}

/** A teammate as assignment and mentions offer them. */
export interface Teammate {
  id: string;
  name: string;
}

/** A conversation's team state, as a change to it is pushed. */
export interface ConversationState {
  conversationId: string;
  status: 'open' | 'done';
  assigneeId: string | null;
  /** Who changed it; null when a customer's text reopened it. */
  by: Teammate | null;
}

/** A row of the call history: the API's call with the caller-ID name the app API adds to it. */
export interface CallLogEntry extends Call {
  contactName: string | null;
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
  /** Live numbers routed over a connection that carries no media (SMPP): text only. */
  textOnly: string[];
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
  disabled: boolean;
  createdAt: string;
}

/** What the realtime channel pushes. */
export type Push =
  | { type: 'hello'; mode: Mode; heartbeatMs?: number }
  | { type: 'heartbeat' }
  | { type: 'message.created'; message: Message; contactName?: string | null }
  | { type: 'message.updated'; message: Message }
  | { type: 'call.created'; call: Call; contactName: string | null }
  | { type: 'contact.changed'; contact: Contact }
  | { type: 'conversation.read'; conversationId: string; userId?: string }
  | { type: 'conversation.unread'; conversationId: string; userId: string }
  | ({ type: 'conversation.updated' } & ConversationState)
  | { type: 'note.created'; note: Note }
  | { type: 'typing'; conversationId: string; user: Teammate }
  | { type: 'opt-out.changed'; phone: string; optedOut: boolean }
  | { type: 'contact.deleted'; id: string };

/**
 * A live carrier connection, as the dashboard shows it (never its password, token or key): an
 * SMSC, an HTTP provider, or a SIP trunk for calls.
 */
export interface CarrierConnection {
  id: string;
  type: 'smpp' | 'twilio' | 'telnyx' | 'sip';
  /** SMPP's settings. */
  host?: string;
  port?: number;
  systemId?: string;
  window: number;
  throughput?: number;
  longMessages?: 'udh' | 'payload';
  receiptIds?: 'dec' | 'hex';
  tls?: boolean;
  /** Twilio's and Telnyx's settings. */
  accountSid?: string;
  messagingServiceSid?: string | null;
  messagingProfileId?: string | null;
  apiBase?: string;
  /** Where the provider posts (HTTP connections, once SWITCHBOARD_PUBLIC_URL is set). */
  webhookUrls?: { status: string; inbound: string };
  /** A SIP trunk's (with host and port): `checking`, then `up` or `failed` (asked with OPTIONS). */
  transport?: 'udp' | 'tcp' | 'tls';
  authenticated?: boolean;
  status: 'connecting' | 'bound' | 'failed' | 'paused' | 'stopped' | 'checking' | 'up';
  lastError: string | null;
  paused: boolean;
  inFlight: number;
  sentLastMinute: number;
  receivedLastMinute: number;
  createdAt: string;
}
