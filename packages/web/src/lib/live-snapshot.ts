// The live state's shape, and the changes pushes make to it: pure functions of a snapshot that
// return the part that changed (live-data.ts sets it), so each rule reads alone and tests alone.
import type { Contact, Message } from '@switchboard/sdk';
import type { QueuedText } from './outbox.ts';
import type { ConnectionState } from './realtime.ts';
import type { CallLogEntry, Conversation, Note, Teammate } from './types.ts';

/** Everything the inbox, calls and contacts screens show, kept current by the realtime channel. */
export interface LiveSnapshot {
  /** Newest first; null until the first load. */
  conversations: Conversation[] | null;
  /** Loaded threads by conversation id, oldest message first. */
  threads: Readonly<Record<string, Message[]>>;
  calls: CallLogEntry[] | null;
  /** The shared directory, newest first: the first contact with a phone is its caller ID. */
  contacts: Contact[] | null;
  connection: ConnectionState;
  /** Internal notes of loaded threads, oldest first. */
  notes: Readonly<Record<string, Note[]>>;
  /** Who is replying in each conversation, until when (epoch ms). */
  typing: Readonly<Record<string, { user: Teammate; until: number }>>;
  teammates: Teammate[] | null;
  /** Texts typed offline, waiting to be sent (oldest first). */
  outbox: QueuedText[];
}

/** Something worth telling the signed-in user about, for notifications. */
export interface Alert {
  kind: 'text' | 'mention' | 'assignment' | 'call';
  title: string;
  body: string;
  conversationId: string | null;
  /** Whether it concerns them: assigned to them, or mentioning them. */
  mine: boolean;
}

/** What the composer sends: the same fields as `POST /v1/messages`, minus `senderName`. */
export interface SendInput {
  from: string;
  to?: string | string[];
  conversationId?: string;
  body?: string;
  mediaUrls?: string[];
}

/** Fields of a contact a person can set. */
export interface ContactInput {
  phone?: string;
  name?: string | null;
  email?: string | null;
  company?: string | null;
}

/** Descending order of plain code-unit comparison (ISO times, time-ordered ids). */
const descending = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);
export const byNewest = (a: Conversation, b: Conversation) =>
  descending(a.lastMessageAt, b.lastMessageAt);

type Patch = Partial<LiveSnapshot>;

/** A message changed (its status): its thread and its conversation's preview follow. */
export function withUpdatedMessage(snapshot: LiveSnapshot, message: Message): Patch {
  const id = message.conversationId;
  const patch: Patch = {};
  const thread = snapshot.threads[id];
  if (thread) {
    patch.threads = {
      ...snapshot.threads,
      [id]: thread.map((m) => (m.id === message.id ? message : m)),
    };
  }
  const row = snapshot.conversations?.find((c) => c.id === id);
  if (row?.lastMessage?.id === message.id) {
    Object.assign(patch, withPatchedConversation(snapshot, id, { lastMessage: message }));
  }
  return patch;
}

/** A conversation in the list, in its place by its newest message. */
export function withConversation(snapshot: LiveSnapshot, conversation: Conversation): Patch {
  const others = (snapshot.conversations ?? []).filter((c) => c.id !== conversation.id);
  return { conversations: [conversation, ...others].sort(byNewest) };
}

/** Some fields of a listed conversation changed; nothing when it is not listed. */
export function withPatchedConversation(
  snapshot: LiveSnapshot,
  id: string,
  patch: Partial<Conversation>,
): Patch {
  const list = snapshot.conversations;
  if (!list?.some((c) => c.id === id)) return {};
  return { conversations: list.map((c) => (c.id === id ? { ...c, ...patch } : c)) };
}

/** STOP or START from a number: every thread with it says so, and its composer follows. */
export function withOptOut(snapshot: LiveSnapshot, phone: string, optedOut: boolean): Patch {
  const list = snapshot.conversations;
  if (!list) return {};
  return {
    conversations: list.map((c) =>
      c.participants.some((p) => p.phone === phone)
        ? {
            ...c,
            participants: c.participants.map((p) =>
              // STOP also took them out of every group (docs/behaviour.md#groups).
              p.phone === phone
                ? { ...p, optedOut, active: optedOut && c.kind === 'group' ? false : p.active }
                : p,
            ),
          }
        : c,
    ),
  };
}

export function withoutContact(snapshot: LiveSnapshot, id: string): Patch {
  const contacts = snapshot.contacts;
  return contacts?.some((c) => c.id === id)
    ? { contacts: contacts.filter((c) => c.id !== id) }
    : {};
}

export function withContact(snapshot: LiveSnapshot, contact: Contact): Patch {
  const others = (snapshot.contacts ?? []).filter((c) => c.id !== contact.id);
  // Ids grow with creation time, so sorting by id keeps the newest contact first.
  return { contacts: [contact, ...others].sort((a, b) => descending(a.id, b.id)) };
}
