import { newId } from '../lib/ids.ts';
import type { WriteTx } from '../store/write-queue.ts';
import { insertEvent } from '../store/repos/events.ts';
import type { Actor } from './context.ts';

/** Every event type of the catalog (spec 6.1). */
export const EVENT_TYPES = [
  'message.received',
  'message.delivered',
  'message.failed',
  'call.completed',
  'call.missed',
  'contact.created',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What `recordEvent` publishes on the store's `event` signal after commit. */
export interface RecordedEvent {
  id: string;
  accountId: string;
  mode: Actor['mode'];
  type: EventType;
}

/**
 * Writes an event to the outbox in the caller's transaction, so the change and
 * its event commit together or not at all; returns the `evt_` id.
 */
export async function recordEvent(
  tx: WriteTx,
  actor: Actor,
  type: EventType,
  data: object,
  now: number,
): Promise<string> {
  const id = newId('evt', now);
  await insertEvent(tx.db, {
    id,
    account_id: actor.accountId,
    mode: actor.mode,
    type,
    data: JSON.stringify(data),
    created_at: now,
    endpoint_id: null,
  });
  const recorded: RecordedEvent = { id, accountId: actor.accountId, mode: actor.mode, type };
  tx.publish('event', recorded);
  return id;
}
