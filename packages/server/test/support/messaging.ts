import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Mode } from '../../src/domain/modes.ts';
import { listEvents } from '../../src/store/repos/events.ts';
import type { DB } from '../../src/store/schema.ts';
import type { ApiClient } from './http.ts';
import { scoped } from '../../src/store/scope.ts';

/** Options of a bounded wait: it gives up after `timeoutMs` and never polls more than `timeoutMs / intervalMs + 1` times. */
export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls `probe` until it returns something other than `undefined` and returns that.
 * Bounded in attempts and in time; fails naming `what` when neither is left.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  { timeoutMs = 5_000, intervalMs = 20 }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const attempts = Math.ceil(timeoutMs / intervalMs) + 1;
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) break;
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Polls `GET /v1/messages/{id}` until `accept` holds for the message, and returns it. */
export function waitForMessage(
  client: ApiClient,
  id: string,
  accept: (message: any) => boolean,
  what: string,
  options?: WaitOptions,
): Promise<any> {
  return waitFor(
    async () => {
      const res = await client.get(`/v1/messages/${id}`);
      if (res.status !== 200) throw new Error(`GET /v1/messages/${id} answered ${res.status}`);
      return accept(res.body) ? res.body : undefined;
    },
    `${id}: ${what}`,
    options,
  );
}

/** Polls a message until its status is one of `statuses`. */
export function waitForStatus(
  client: ApiClient,
  id: string,
  statuses: string | string[],
  options?: WaitOptions,
): Promise<any> {
  const wanted = [statuses].flat();
  return waitForMessage(
    client,
    id,
    (m) => wanted.includes(m.status),
    `status ${wanted.join('|')}`,
    options,
  );
}

/** An outbox event with its `data` parsed. */
export interface ParsedEvent {
  id: string;
  type: string;
  data: any;
  createdAt: number;
}

/** The outbox events of an account and mode (optionally of one type), oldest first, data parsed. */
export async function eventsOf(
  db: Kysely<DB>,
  accountId: string,
  mode: Mode,
  type?: string,
): Promise<ParsedEvent[]> {
  const rows = await listEvents(scoped(db, { accountId, mode }), type);
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    data: JSON.parse(row.data),
    createdAt: Number(row.created_at),
  }));
}

// Receipts of earlier sends keep arriving in the background; they say nothing about a new request.
const RECEIPT_EVENTS = ['message.delivered', 'message.failed'];

/**
 * What an account has stored in every table a send or an inbound text writes to.
 * `events` leaves out delivery receipts (`message.delivered`, `message.failed`),
 * which earlier sends may add at any moment. `queued` lists the submissions
 * waiting for the carrier, which the dispatcher may take at any moment too.
 */
export interface StoredSnapshot {
  messages: number;
  recipients: number;
  conversations: number;
  participants: number;
  events: number;
  optOuts: number;
  queued: string[];
}

function count(row: { n: number | string | bigint } | undefined): number {
  return Number(row?.n ?? 0);
}

/** Takes a snapshot of what an account has stored (see `assertNothingStored`). */
export async function storedSnapshot(db: Kysely<DB>, accountId: string): Promise<StoredSnapshot> {
  const messages = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  const recipients = await db
    .selectFrom('message_recipients')
    .innerJoin('messages', 'messages.id', 'message_recipients.message_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('messages.account_id', '=', accountId)
    .executeTakeFirst();
  // Submissions still to make: queued recipients the carrier has no reference for.
  const queued = await db
    .selectFrom('message_recipients')
    .innerJoin('messages', 'messages.id', 'message_recipients.message_id')
    .select(['message_recipients.message_id', 'message_recipients.phone'])
    .where('messages.account_id', '=', accountId)
    .where('message_recipients.status', '=', 'queued')
    .where('message_recipients.carrier_ref', 'is', null)
    .execute();
  const conversations = await db
    .selectFrom('conversations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  const participants = await db
    .selectFrom('conversation_participants')
    .innerJoin('conversations', 'conversations.id', 'conversation_participants.conversation_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('conversations.account_id', '=', accountId)
    .executeTakeFirst();
  const events = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('type', 'not in', RECEIPT_EVENTS)
    .executeTakeFirst();
  const optOuts = await db
    .selectFrom('opt_outs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return {
    messages: count(messages),
    recipients: count(recipients),
    conversations: count(conversations),
    participants: count(participants),
    events: count(events),
    optOuts: count(optOuts),
    queued: queued.map((r) => `${r.message_id} ${r.phone}`),
  };
}

/**
 * Runs `action` and asserts that the account stored nothing meanwhile: no
 * message, recipient, conversation, participant, event or opt-out, and no new
 * submission still to make (submissions may only have been made). Returns what `action` returned.
 */
export async function assertNothingStored<T>(
  db: Kysely<DB>,
  accountId: string,
  action: () => Promise<T>,
): Promise<T> {
  const before = await storedSnapshot(db, accountId);
  const result = await action();
  const after = await storedSnapshot(db, accountId);
  const { queued: queuedBefore, ...countsBefore } = before;
  const { queued: queuedAfter, ...countsAfter } = after;
  assert.deepEqual(countsAfter, countsBefore, 'nothing stored');
  const known = new Set(queuedBefore);
  assert.deepEqual(
    queuedAfter.filter((row) => !known.has(row)),
    [],
    'no new submission to make',
  );
  return result;
}

/** Outbound messages an account sent to `phone` (one-to-one), oldest first. */
export function outboundTo(db: Kysely<DB>, accountId: string, mode: Mode, phone: string) {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('direction', '=', 'outbound')
    .where('to_json', '=', JSON.stringify(phone))
    .orderBy('id', 'asc')
    .execute();
}

/**
 * A source of distinct E.164 numbers that are neither sandbox numbers
 * (`+1NPA55501XX`) nor magic recipients, so they never collide with an
 * account's own numbers. `area` keeps the numbers of different files apart in logs.
 */
export function phoneNumbers(area = '312'): () => string {
  let next = 0;
  return () => `+1${area}${2_000_000 + next++}`;
}
