import { newId } from '../lib/ids.ts';
import { validationError } from '../domain/errors.ts';
import { requireE164 } from '../domain/message-rules.ts';
import { presentCall, type CallView } from '../presenters/call.ts';
import { insertCall } from '../store/repos/calls.ts';
import { findNewestContactByPhone } from '../store/repos/contacts.ts';
import { findPhoneNumber } from '../store/repos/phone-numbers.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { scopeOf, type Actor, type CommandDeps } from './context.ts';
import { recordEvent } from './record-event.ts';
import { scoped } from '../store/scope.ts';

/** A call as the telephony side reports it once it has ended. */
export interface RecordCallInput {
  from: string;
  to: string;
  direction?: 'inbound' | 'outbound' | undefined;
  outcome: 'completed' | 'missed';
  /** Whole seconds of conversation; a missed call has none. */
  duration?: number | undefined;
}

/**
 * Records an ended call in the call history, resolves caller ID for the other
 * party, and emits its event in the same transaction: `call.missed` for an inbound
 * call that rang out unanswered, `call.completed` for every other call that ended
 * (spec 6.1), an outbound one nobody answered included, with `status` `missed`.
 * The account's number is `to` for an inbound call and `from` for an outbound one.
 */
export async function recordCall(
  tx: WriteTx,
  actor: Actor,
  input: RecordCallInput,
  deps: CommandDeps,
): Promise<CallView> {
  const direction = input.direction ?? 'inbound';
  requireE164(input.from, 'from');
  requireE164(input.to, 'to');
  const ours = direction === 'inbound' ? 'to' : 'from';
  const number = await findPhoneNumber(tx.db, actor.mode, input[ours]);
  if (!number || number.account_id !== actor.accountId) {
    throw validationError(
      ours,
      `${ours} must be one of this account's ${actor.mode}-mode numbers for an ${direction} call.`,
    );
  }
  if (input.outcome === 'missed' && (input.duration ?? 0) !== 0) {
    throw validationError('duration', 'A missed call has a duration of 0.');
  }
  const duration = input.outcome === 'missed' ? 0 : (input.duration ?? 0);
  const other = direction === 'inbound' ? input.from : input.to;
  const contact = await findNewestContactByPhone(scoped(tx.db, actor), other);
  const now = deps.clock.now();
  const row = {
    id: newId('call', now),
    account_id: actor.accountId,
    mode: actor.mode,
    from_phone: input.from,
    to_phone: input.to,
    direction,
    status: input.outcome,
    started_at: now - duration * 1000,
    duration,
    contact_id: contact?.id ?? null,
    created_at: now,
  };
  await insertCall(tx.db, row);
  const call = presentCall(row);
  await recordEvent(
    tx,
    actor,
    call.direction === 'inbound' && call.status === 'missed' ? 'call.missed' : 'call.completed',
    call,
    now,
  );
  tx.publish('call.created', { ...scopeOf(actor), call, contactName: contact?.name ?? null });
  return call;
}
