import { newId } from '../lib/ids.ts';
import { reopenIfDone } from '../store/repos/conversation-team.ts';
import { validationError } from '../domain/errors.ts';
import { mediaContentType } from '../domain/media.ts';
import type { MediaItem } from '../domain/media-store.ts';
import { requireNoNul } from '../domain/text-rules.ts';
import { checkMediaUrls, requireE164 } from '../domain/message-rules.ts';
import type { Mode } from '../domain/modes.ts';
import {
  START_CONFIRMATION,
  STOP_CONFIRMATION,
  classifyKeyword,
  defaultHelpReply,
} from '../domain/opt-out-keywords.ts';
import { presentMessage, type MessageView } from '../presenters/message.ts';
import { findAccount } from '../store/repos/accounts.ts';
import { findNewestContactByPhone } from '../store/repos/contacts.ts';
import {
  deactivateInAllGroups,
  findConversation,
  findLatestConversationWith,
  listParticipants,
  touchConversation,
  type ConversationRow,
} from '../store/repos/conversations.ts';
import { claimInboundRef, findInboundRef } from '../store/repos/inbound-refs.ts';
import { findMessagesByIds, insertMessage } from '../store/repos/messages.ts';
import { addOptOut, removeOptOut } from '../store/repos/opt-outs.ts';
import { findPhoneNumber } from '../store/repos/phone-numbers.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { scopeOf, type Actor, type CommandDeps } from './context.ts';
import { findOrCreateDirectConversation } from './conversations.ts';
import { recordEvent } from './record-event.ts';
import { sendMessage } from './send-message.ts';
import { keepMedia, type MediumToKeep } from './store-media.ts';
import { scoped } from '../store/scope.ts';

/** A text arriving from the network for one of an account's numbers. */
export interface ReceiveMessageInput {
  mode: Mode;
  from: string;
  to: string;
  body?: string | undefined;
  mediaUrls?: string[] | undefined;
  /**
   * The media as the media store kept them (on Switchboard's links) or not (and why), in place
   * of `mediaUrls`: set by the transports that fetch them (http/media/ingest-media.ts).
   */
  media?: MediaItem[] | undefined;
  /** The bytes of the kept items of `media`, stored with the text (http/media/ingest-media.ts). */
  keep?: MediumToKeep[] | undefined;
  /** A group reply names its group (MMS group headers; the sandbox trigger may pass it). */
  conversationId?: string | undefined;
  /**
   * `connection id/provider id` of a text from an HTTP carrier: a provider that posts it again
   * gets the message first received, and nothing changes.
   */
  carrierRef?: string | undefined;
}

/** Attribution of the platform's own replies in the inbox. */
export const AUTO_REPLY_SENDER = 'Auto-reply';

async function resolveConversation(
  tx: WriteTx,
  actor: Actor,
  input: ReceiveMessageInput,
  now: number,
): Promise<ConversationRow> {
  if (input.conversationId !== undefined) {
    const conversation = await findConversation(scoped(tx.db, actor), input.conversationId);
    const members = conversation ? await listParticipants(tx.db, conversation.id, true) : [];
    if (
      !conversation ||
      conversation.account_phone !== input.to ||
      !members.some((m) => m.phone === input.from)
    ) {
      throw validationError('conversationId', 'No conversation between these numbers has that id.');
    }
    return conversation;
  }
  // A reply belongs to the thread it answers: the latest one, direct or group,
  // in which the sender takes part. A first text opens a direct thread.
  return (
    (await findLatestConversationWith(scoped(tx.db, actor), input.to, input.from)) ??
    (await findOrCreateDirectConversation(tx, actor, input.to, input.from, now))
  );
}

/**
 * Handles an inbound text as the carrier delivers it: stores it as
 * `inbound`/`delivered` in its conversation with caller ID resolved, records
 * `message.received`, and applies the opt-out keywords (STOP, START, HELP) with
 * their automatic replies, all in one transaction. `accountId`, when given,
 * requires `to` to be that account's number (the sandbox trigger).
 */
export async function receiveMessage(
  tx: WriteTx,
  input: ReceiveMessageInput,
  deps: CommandDeps,
  restrictToAccount?: string,
): Promise<MessageView> {
  requireE164(input.from, 'from');
  requireE164(input.to, 'to');
  const mediaUrls = checkMediaUrls(input.mediaUrls);
  const body = input.body ?? '';
  requireNoNul(body, 'body');
  const media =
    input.media ?? mediaUrls.map((url) => ({ url, contentType: mediaContentType(url) }));
  if (body.trim() === '' && media.length === 0) {
    throw validationError('body', 'An inbound text needs a body or mediaUrls.');
  }
  const number = await findPhoneNumber(tx.db, input.mode, input.to);
  if (!number || (restrictToAccount !== undefined && number.account_id !== restrictToAccount)) {
    throw validationError('to', `to must be one of this account's ${input.mode}-mode numbers.`);
  }
  const actor: Actor = { accountId: number.account_id, mode: input.mode };
  const now = deps.clock.now();
  const id = newId('msg', now);
  if (
    input.carrierRef !== undefined &&
    !(await claimInboundRef(tx.db, input.carrierRef, id, now))
  ) {
    return receivedBefore(tx, input.carrierRef);
  }
  const conversation = await resolveConversation(tx, actor, input, now);
  if (input.keep) await keepMedia(tx, actor.accountId, input.keep, now);
  const contact = await findNewestContactByPhone(scoped(tx.db, actor), input.from);
  const row = {
    id,
    account_id: actor.accountId,
    mode: actor.mode,
    conversation_id: conversation.id,
    direction: 'inbound' as const,
    from_phone: input.from,
    to_json: JSON.stringify(input.to),
    is_group: 0,
    body,
    media_json: JSON.stringify(media),
    segments: 1,
    status: 'delivered' as const,
    failure_reason: null,
    sender_name: null,
    contact_id: contact?.id ?? null,
    auto_reply: 0,
    created_at: now,
    updated_at: now,
  };
  await insertMessage(tx.db, row);
  await touchConversation(tx.db, conversation.id, now, true);
  await reopenOnInbound(tx, actor, conversation.id, now);
  const message = presentMessage(row);
  await recordEvent(tx, actor, 'message.received', message, now);
  tx.publish('message.created', { ...scopeOf(actor), message, contactName: contact?.name ?? null });
  await applyKeyword(tx, actor, input, body, deps);
  return message;
}

/** The message a provider's repeated text was first received as. */
async function receivedBefore(tx: WriteTx, carrierRef: string): Promise<MessageView> {
  const id = await findInboundRef(tx.db, carrierRef);
  const [row] = id === undefined ? [] : await findMessagesByIds(tx.db, [id]);
  if (!row) throw new Error(`The message received as ${carrierRef} is gone.`);
  return presentMessage(row);
}

/** A done conversation opens again when its customer writes (docs/behaviour.md#team-workflow). */
async function reopenOnInbound(tx: WriteTx, actor: Actor, id: string, now: number): Promise<void> {
  const reopened = await reopenIfDone(tx.db, id, now);
  if (!reopened) return;
  tx.publish('conversation.updated', {
    ...scopeOf(actor),
    conversationId: id,
    status: reopened.status,
    assigneeId: reopened.assignee_id,
    by: null,
  });
}

async function applyKeyword(
  tx: WriteTx,
  actor: Actor,
  input: ReceiveMessageInput,
  body: string,
  deps: CommandDeps,
): Promise<void> {
  const keyword = classifyKeyword(body);
  if (keyword === null) return;
  const now = deps.clock.now();
  let reply: string;
  if (keyword === 'stop') {
    await addOptOut(tx.db, {
      account_id: actor.accountId,
      mode: actor.mode,
      phone: input.from,
      created_at: now,
    });
    // Carriers require fresh consent: a number that opted out leaves every group
    // and is not silently re-added by a later START.
    await deactivateInAllGroups(scoped(tx.db, actor), input.from);
    tx.publish('opt-out.changed', { ...scopeOf(actor), phone: input.from, optedOut: true });
    reply = STOP_CONFIRMATION;
  } else if (keyword === 'start') {
    // START lifts an opt-out (spec 3.2); from a number that never opted out it is an
    // ordinary text ("Yes" to "Shall we book you in?"), and a re-subscription notice
    // in answer would only confuse.
    if (!(await removeOptOut(scoped(tx.db, actor), input.from))) return;
    tx.publish('opt-out.changed', { ...scopeOf(actor), phone: input.from, optedOut: false });
    reply = START_CONFIRMATION;
  } else {
    const account = await findAccount(tx.db, actor.accountId);
    reply = account?.help_reply ?? defaultHelpReply(account?.name ?? '');
  }
  await sendMessage(
    tx,
    actor,
    { from: input.to, to: input.from, body: reply, senderName: AUTO_REPLY_SENDER },
    deps,
    { bypassOptOut: true },
  );
}
