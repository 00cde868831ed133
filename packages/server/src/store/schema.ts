import type { CarrierType } from '../domain/carrier-settings.ts';
/**
 * Row types of every table, as both engines return them: ids are prefixed text,
 * times are epoch milliseconds, booleans are 0/1 and JSON is serialised text.
 */

import type { Mode } from '../domain/modes.ts';
export type { Mode } from '../domain/modes.ts';

export interface AccountsTable {
  id: string;
  name: string;
  help_reply: string | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  mode: Mode;
  /** SHA-256 of the whole secret, hex. The secret itself is never stored. */
  key_hash: string;
  /** Last four characters of the secret, to tell keys apart in the dashboard. */
  last4: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface PhoneNumbersTable {
  id: string;
  account_id: string;
  mode: Mode;
  phone: string;
  created_at: number;
  /** The live connection its texts go through; null: the account's first (migration 016). */
  carrier_id: string | null;
  /** The SIP trunk its calls go through; null: no live calls (migration 032). */
  voice_carrier_id: string | null;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: 'owner' | 'member';
  password_hash: string;
  created_at: number;
  /** When an owner disabled the login; null while enabled. */
  disabled_at: number | null;
}

export interface ContactsTable {
  id: string;
  account_id: string;
  mode: Mode;
  name: string | null;
  phone: string;
  email: string | null;
  company: string | null;
  created_at: number;
  updated_at: number | null;
}

/** The outbox: every event is written in the transaction of the change that causes it. */
export interface EventsTable {
  id: string;
  account_id: string;
  mode: Mode;
  type: string;
  /** JSON of the envelope's `data`. */
  data: string;
  created_at: number;
  /** Set only on a test event: the one endpoint it is for. */
  endpoint_id: string | null;
}

export interface IdempotencyKeysTable {
  account_id: string;
  mode: Mode;
  key: string;
  /** SHA-256 of method, path and canonical body: another body under the same key is a conflict. */
  request_hash: string;
  status_code: number;
  /** JSON of the first response. */
  response_body: string;
  created_at: number;
}

/** A thread: a direct one is (account number, other number); a group is its own. */
export interface ConversationsTable {
  id: string;
  account_id: string;
  mode: Mode;
  kind: 'direct' | 'group';
  account_phone: string;
  peer_phone: string | null;
  created_at: number;
  last_message_at: number;
  unread_count: number;
}

/** Who a conversation sends to; `active` 0 once removed (kept for history). */
export interface ConversationParticipantsTable {
  conversation_id: string;
  phone: string;
  active: number;
  added_at: number;
}

export interface MessagesTable {
  id: string;
  account_id: string;
  mode: Mode;
  conversation_id: string;
  direction: 'inbound' | 'outbound';
  from_phone: string;
  /** JSON: a string for a direct message, an array of numbers for a group message. */
  to_json: string;
  is_group: number;
  body: string;
  /** JSON array of `{url, contentType}`. */
  media_json: string;
  segments: number;
  status: 'queued' | 'sent' | 'delivered' | 'failed';
  failure_reason: string | null;
  sender_name: string | null;
  contact_id: string | null;
  /** 1 for the platform's reply to a keyword, which no opt-out blocks (migration 012). */
  auto_reply: number;
  created_at: number;
  updated_at: number;
}

/**
 * One row per recipient of an outbound message: each is its own carrier
 * submission, due at `run_at` until the carrier's reference is recorded (or it
 * fails); a claim's lease moves `run_at` to when the lease ends.
 */
export interface MessageRecipientsTable {
  message_id: string;
  phone: string;
  status: 'queued' | 'sent' | 'delivered' | 'failed';
  failure_reason: string | null;
  carrier_ref: string | null;
  updated_at: number;
  run_at: number | null;
  attempts: number;
  last_error: string | null;
}

/** Numbers that texted STOP, per account and mode. */
export interface OptOutsTable {
  account_id: string;
  mode: Mode;
  phone: string;
  created_at: number;
}

export interface CallsTable {
  id: string;
  account_id: string;
  mode: Mode;
  from_phone: string;
  to_phone: string;
  direction: 'inbound' | 'outbound';
  status: 'completed' | 'missed';
  started_at: number;
  duration: number;
  contact_id: string | null;
  created_at: number;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  mode: Mode;
  url: string;
  description: string | null;
  /** JSON array of subscribed event types. */
  events_json: string;
  enabled: number;
  disabled_reason: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | null;
  failing_since: number | null;
  deleted_at: number | null;
  created_at: number;
  updated_at: number;
}

/** One event to one endpoint, retried until it succeeds or the schedule ends. */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: number;
  locked_until: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** One HTTP attempt of a delivery, as the delivery log shows it. */
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  endpoint_id: string;
  attempted_at: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_excerpt: string | null;
}

/** A signed-in softphone browser. */
export interface SessionsTable {
  token_hash: string;
  user_id: string;
  account_id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/** The whole database, as Kysely sees it. */
/** A live carrier connection's configuration (migration 016). */
export interface CarrierConnectionsTable {
  id: string;
  account_id: string;
  /** `sip`: a trunk for calls (migration 032, domain/sip-trunk-settings.ts). */
  type: CarrierType;
  /** Shown settings (domain/carrier-settings.ts), as JSON. */
  settings_json: string;
  /** The credentials, sealed (lib/secret-box.ts). */
  secret_sealed: string;
  paused: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

/** A call answered and not yet seen to end (migration 033). */
export interface OpenCallsTable {
  call_id: string;
  /** The voice run (its control token's id) whose Kamailio holds the dialog. */
  run_id: string;
  account_id: string;
  mode: Mode;
  from_phone: string;
  to_phone: string;
  direction: 'inbound' | 'outbound';
  answered_at: number;
  seen_at: number;
}

export interface VoiceInstancesTable {
  /** The voice run (voice/ephemeral-credentials.ts `voiceRunId`) the instance runs. */
  run_id: string;
  /** `host:port` where peers reach its Kamailio over SIP (UDP). */
  sip_address: string;
  seen_at: number;
}

/** A connection's live state, written by the instance that holds its bind. */
export interface CarrierBindsTable {
  connection_id: string;
  holder: string | null;
  lease_until: number;
  status: string;
  last_error: string | null;
  stats_json: string;
  updated_at: number;
}

/** A part of a long text and its own receipt (migration 017). */
/** A medium received with an inbound MMS (migration 030), its bytes as base64. */
export interface MediaTable {
  id: string;
  account_id: string;
  content_type: string;
  size: number;
  data: string;
  created_at: number;
}

/** The provider's id of a text received through an HTTP carrier (migration 031). */
export interface InboundRefsTable {
  ref: string;
  message_id: string;
  created_at: number;
}

export interface CarrierPartsTable {
  part_ref: string;
  carrier_ref: string;
  part: number;
  parts: number;
  status: 'sent' | 'delivered' | 'failed';
  failure_reason: string | null;
  created_at: number;
}

/** A part of a text from a handset, kept until the rest come (migration 025). */
export interface CarrierInboundPartsTable {
  text_key: string;
  seq: number;
  total: number;
  part_json: string;
  received_at: number;
}

/** Whether a conversation is open or done, and its assignee (migration 026). */
export interface ConversationStatesTable {
  conversation_id: string;
  status: 'open' | 'done';
  assignee_id: string | null;
  updated_at: number;
}

/** What one user has read of a conversation (migration 026). */
export interface ConversationReadsTable {
  conversation_id: string;
  user_id: string;
  read_at: number;
  marked_unread: number;
}

/** An internal note in a thread: seen by the team, never sent (migration 026). */
export interface ConversationNotesTable {
  id: string;
  conversation_id: string;
  author_id: string;
  author_name: string;
  body: string;
  mentions_json: string;
  created_at: number;
}

/** An account's VAPID key pair for Web Push, made once (migration 027). */
export interface PushKeysTable {
  account_id: string;
  public_key: string;
  /** Sealed by the secret box. */
  private_key_sealed: string;
  created_at: number;
}

/** A browser's push subscription for a user (migration 027). */
export interface PushSubscriptionsTable {
  endpoint: string;
  user_id: string;
  account_id: string;
  p256dh: string;
  auth: string;
  created_at: number;
}

/** An instance's claim to push one notifiable change (migration 029). */
export interface PushClaimsTable {
  event_key: string;
  claimed_at: number;
}

/** What a user wants to be notified of (migration 027). */
export interface NotificationSettingsTable {
  user_id: string;
  texts: 'all' | 'mine' | 'none';
  calls: number;
  sound: number;
  updated_at: number;
}

export interface DB {
  carrier_parts: CarrierPartsTable;
  carrier_inbound_parts: CarrierInboundPartsTable;
  media: MediaTable;
  inbound_refs: InboundRefsTable;
  carrier_connections: CarrierConnectionsTable;
  open_calls: OpenCallsTable;
  voice_instances: VoiceInstancesTable;
  carrier_binds: CarrierBindsTable;
  sessions: SessionsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  conversations: ConversationsTable;
  conversation_participants: ConversationParticipantsTable;
  messages: MessagesTable;
  message_recipients: MessageRecipientsTable;
  opt_outs: OptOutsTable;
  calls: CallsTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  phone_numbers: PhoneNumbersTable;
  users: UsersTable;
  contacts: ContactsTable;
  events: EventsTable;
  idempotency_keys: IdempotencyKeysTable;
  conversation_states: ConversationStatesTable;
  conversation_reads: ConversationReadsTable;
  conversation_notes: ConversationNotesTable;
  push_keys: PushKeysTable;
  push_subscriptions: PushSubscriptionsTable;
  push_claims: PushClaimsTable;
  notification_settings: NotificationSettingsTable;
}
