import type { Kysely } from 'kysely';
import { notFound } from '../domain/errors.ts';
import { presentCall, type CallView } from '../presenters/call.ts';
import { presentConversation, type ConversationView } from '../presenters/conversation.ts';
import { presentMessage, type MessageView } from '../presenters/message.ts';
import { listCalls } from '../store/repos/calls.ts';
import { namesByPhone } from '../store/repos/contacts.ts';
import {
  findConversation,
  listConversations,
  listParticipantsOf,
} from '../store/repos/conversations.ts';
import {
  lastMessagesOf,
  listConversationMessages,
  listRecipientsOf,
  type MessageRow,
} from '../store/repos/messages.ts';
import { optedOutAmong } from '../store/repos/opt-outs.ts';
import type { DB } from '../store/schema.ts';
import type { Scope } from '../store/scope.ts';

async function presentMessages(db: Kysely<DB>, rows: MessageRow[]): Promise<MessageView[]> {
  const recipients = await listRecipientsOf(
    db,
    rows.filter((r) => r.is_group).map((r) => r.id),
  );
  return rows.map((row) =>
    presentMessage(
      row,
      recipients.filter((r) => r.message_id === row.id),
    ),
  );
}

/** The shared inbox of an account in one mode: conversations newest first, with caller ID. */
export async function loadInbox(scope: Scope, limit = 100): Promise<ConversationView[]> {
  const { db } = scope;
  const conversations = await listConversations(scope, limit);
  const ids = conversations.map((c) => c.id);
  const [participants, lastMessages] = await Promise.all([
    listParticipantsOf(db, ids),
    lastMessagesOf(db, ids),
  ]);
  const phones = [...new Set(participants.map((p) => p.phone))];
  const [names, optedOut] = await Promise.all([
    namesByPhone(scope, phones),
    optedOutAmong(scope, phones),
  ]);
  const lastViews = await presentMessages(db, lastMessages);
  return conversations.map((c) =>
    presentConversation(
      c,
      participants.filter((p) => p.conversation_id === c.id),
      lastViews.find((m) => m.conversationId === c.id) ?? null,
      names,
      optedOut,
    ),
  );
}

/** One conversation with its latest messages, oldest first. */
export async function loadConversation(
  scope: Scope,
  id: string,
  limit = 200,
): Promise<{ conversation: ConversationView; messages: MessageView[] }> {
  const { db } = scope;
  const conversation = await findConversation(scope, id);
  if (!conversation) throw notFound('conversation', id);
  const [participants, rows] = await Promise.all([
    listParticipantsOf(db, [id]),
    listConversationMessages(db, id, limit),
  ]);
  const phones = participants.map((p) => p.phone);
  const [names, optedOut] = await Promise.all([
    namesByPhone(scope, phones),
    optedOutAmong(scope, phones),
  ]);
  const messages = (await presentMessages(db, rows)).reverse();
  return {
    conversation: presentConversation(
      conversation,
      participants,
      messages.at(-1) ?? null,
      names,
      optedOut,
    ),
    messages,
  };
}

/** A call in the history, with the other party's caller-ID name. */
export interface CallHistoryEntry extends CallView {
  contactName: string | null;
}

/** Call history, newest first, names resolved from the directory. */
export async function loadCallHistory(scope: Scope, limit = 200): Promise<CallHistoryEntry[]> {
  const calls = await listCalls(scope, limit);
  const other = (c: (typeof calls)[number]) =>
    c.direction === 'inbound' ? c.from_phone : c.to_phone;
  const names = await namesByPhone(scope, [...new Set(calls.map(other))]);
  return calls.map((c) => ({ ...presentCall(c), contactName: names.get(other(c)) ?? null }));
}

/**
 * Which of these numbers have opted out: the softphone asks before a send that would drop
 * them (docs/behaviour.md#groups), instead of learning it from the answer.
 */
export async function optedOutRecipients(scope: Scope, phones: string[]): Promise<string[]> {
  return [...(await optedOutAmong(scope, [...new Set(phones)]))].sort();
}
