import type { Contact, Message } from '@switchboard/sdk';
import { ApiRequestError, type ApiClient } from './api.ts';
import { cachedView, saveView } from './offline-store.ts';
import { newKey, Outbox, type QueuedText } from './outbox.ts';
import { formatPhone } from './format.ts';
import { CallerIdNames } from './caller-id.ts';
import { openRealtime, type RealtimeHandle } from './realtime.ts';
import { withPushes } from './thread-merge.ts';
import { applyTeamPush, TYPING_SHOWN_MS, withNote, withoutExpiredTyping } from './team-pushes.ts';
import type {
  CallLogEntry,
  Conversation,
  ConversationState,
  ListOf,
  Note,
  Push,
  Teammate,
} from './types.ts';
import {
  byNewest,
  withContact,
  withConversation,
  withOptOut,
  withoutContact,
  withPatchedConversation,
  withUpdatedMessage,
  type Alert,
  type ContactInput,
  type LiveSnapshot,
  type SendInput,
} from './live-snapshot.ts';

export type { Alert, ContactInput, LiveSnapshot, SendInput } from './live-snapshot.ts';

/** How soon a text whose answer was lost is tried again. */
const RETRY_OUTBOX_MS = 2_000;

/**
 * The account's live state for one mode. Screens read snapshots (useSyncExternalStore) and call
 * its actions; pushes from the channel patch the snapshot in place, and every (re)connection
 * refetches the lists so nothing missed while offline stays missing.
 */
export class LiveData {
  readonly api: ApiClient;
  readonly #announce: (text: string) => void;
  readonly #onSessionEnded: () => void;
  readonly #listeners = new Set<() => void>();
  #snapshot: LiveSnapshot = {
    conversations: null,
    threads: {},
    calls: null,
    contacts: null,
    connection: 'connecting',
    notes: {},
    typing: {},
    teammates: null,
    outbox: [],
  };
  readonly #alerts = new Set<(alert: Alert) => void>();
  readonly #userId: string | null;
  readonly #outbox: Outbox | null;
  #lastTypingSent = 0;
  #persistTimer: ReturnType<typeof setTimeout> | null = null;
  #realtime: RealtimeHandle | null = null;
  #open: string | null = null;
  /** For each thread load in flight, by conversation: the messages pushed since it started. */
  readonly #pushedWhileLoading = new Map<string, Set<Map<string, Message>>>();
  readonly #names = new CallerIdNames();

  constructor(
    api: ApiClient,
    announce: (text: string) => void,
    onSessionEnded: () => void = () => undefined,
    userId: string | null = null,
  ) {
    this.api = api;
    this.#announce = announce;
    this.#onSessionEnded = onSessionEnded;
    this.#userId = userId;
    this.#outbox = userId === null ? null : new Outbox(userId, api.mode);
    // What this device saw last shows at once (and is all there is when offline).
    const cached = userId === null ? null : cachedView(userId, api.mode);
    this.#snapshot = {
      ...this.#snapshot,
      ...(cached ?? {}),
      outbox: this.#outbox?.list() ?? [],
    };
  }

  /** For useSyncExternalStore. */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Listens for what is worth a notification; returns the way to stop. */
  onAlert(listener: (alert: Alert) => void): () => void {
    this.#alerts.add(listener);
    return () => this.#alerts.delete(listener);
  }

  #alert(alert: Alert): void {
    for (const listener of this.#alerts) listener(alert);
  }

  /** For useSyncExternalStore: the same object until something changed. */
  getSnapshot = (): LiveSnapshot => this.#snapshot;

  #set(patch: Partial<LiveSnapshot>): void {
    if (Object.keys(patch).length === 0) return;
    this.#snapshot = { ...this.#snapshot, ...patch };
    for (const listener of this.#listeners) listener();
    this.#persistSoon();
  }

  /** Keeps what is on screen for an offline start, at most twice a second. */
  #persistSoon(): void {
    const userId = this.#userId;
    if (userId === null || this.#persistTimer !== null) return;
    this.#persistTimer = setTimeout(() => {
      this.#persistTimer = null;
      const { conversations, threads, calls, contacts } = this.#snapshot;
      saveView(userId, this.api.mode, { conversations, threads: { ...threads }, calls, contacts });
    }, 500);
  }

  /** Loads everything and opens the channel. Safe to call again after {@link stop}. */
  start(): void {
    if (this.#realtime) return;
    void this.refreshAll();
    this.#realtime = openRealtime(this.api.mode, {
      onPush: (push) => this.#apply(push),
      onState: (connection) => this.#set({ connection }),
      onSessionEnded: () => {
        this.stop();
        this.#onSessionEnded();
      },
    });
  }

  /** Closes the channel (sign-out, mode switch, unmount). */
  stop(): void {
    this.#realtime?.close();
    this.#realtime = null;
  }

  /** The caller-ID name of a number from the directory, or null when no contact has it. */
  nameFor(phone: string): string | null {
    return this.#names.of(this.#snapshot.contacts).get(phone) ?? null;
  }

  /** The name to show for a number: the directory's, the server's, else the formatted number. */
  label(phone: string, fallback: string | null = null): string {
    return this.nameFor(phone) ?? fallback ?? formatPhone(phone);
  }

  /** Refetches every list and the open thread: the catch-up after a reconnection. */
  async refreshAll(): Promise<void> {
    // Threads other than the open one reload when next opened.
    const open = this.#open;
    const threads =
      open && this.#snapshot.threads[open] ? { [open]: this.#snapshot.threads[open] } : {};
    this.#set({ threads });
    await Promise.allSettled([
      this.loadConversations(),
      this.loadCalls(),
      this.loadContacts(),
      this.loadTeammates(),
      open ? this.loadThread(open) : Promise.resolve(),
    ]);
  }

  /** Refetches the conversation list. */
  async loadConversations(): Promise<void> {
    const { data } = await this.api.get<ListOf<Conversation>>('/conversations');
    this.#set({ conversations: data.toSorted(byNewest) });
  }

  /** Refetches who can be assigned and mentioned. */
  async loadTeammates(): Promise<void> {
    const { data } = await this.api.get<ListOf<Teammate>>('/teammates');
    this.#set({ teammates: data });
  }

  /** Refetches the call history. */
  async loadCalls(): Promise<void> {
    const { data } = await this.api.get<ListOf<CallLogEntry>>('/calls');
    this.#set({ calls: data });
  }

  /** Refetches the directory. */
  async loadContacts(): Promise<void> {
    const { data } = await this.api.get<ListOf<Contact>>('/contacts');
    this.#set({ contacts: data });
  }

  /** Loads one thread (and refreshes its row in the list). */
  async loadThread(id: string): Promise<void> {
    const pushed = new Map<string, Message>();
    const loads = this.#pushedWhileLoading.get(id) ?? new Set();
    this.#pushedWhileLoading.set(id, loads.add(pushed));
    let answer: { conversation: Conversation; messages: Message[]; notes?: Note[] };
    try {
      answer = await this.api.get(`/conversations/${encodeURIComponent(id)}`);
    } finally {
      loads.delete(pushed);
      if (loads.size === 0) this.#pushedWhileLoading.delete(id);
    }
    const { conversation } = answer;
    const messages = withPushes(answer.messages, pushed);
    this.#set({
      threads: { ...this.#snapshot.threads, [id]: messages },
      notes: { ...this.#snapshot.notes, [id]: answer.notes ?? [] },
    });
    const reading = id === this.#open;
    this.#upsertConversation({
      ...conversation,
      unreadCount: reading ? 0 : conversation.unreadCount,
    });
    if (reading && conversation.unreadCount > 0) void this.markRead(id);
  }

  /** The thread on screen: its inbound messages count as read while it stays open. */
  setOpenConversation(id: string | null): void {
    this.#open = id;
    if (id === null) return;
    const row = this.#snapshot.conversations?.find((c) => c.id === id);
    if (row && row.unreadCount > 0) void this.markRead(id);
  }

  /** Marks a conversation unread for the signed-in user only. */
  async markUnread(id: string): Promise<void> {
    this.#patchConversation(id, { unreadCount: 1 });
    await this.api.post(`/conversations/${encodeURIComponent(id)}/unread`);
  }

  /** Marks a conversation done, or open again, for the team. */
  setStatus(id: string, status: 'open' | 'done'): Promise<void> {
    return this.#changeState(id, 'status', { status });
  }

  /** Assigns a conversation to a teammate, or to nobody. */
  assign(id: string, assigneeId: string | null): Promise<void> {
    return this.#changeState(id, 'assignee', { assigneeId });
  }

  async #changeState(id: string, what: 'status' | 'assignee', body: object): Promise<void> {
    const path = `/conversations/${encodeURIComponent(id)}/${what}`;
    const state = await this.api.post<ConversationState>(path, body);
    this.#patchConversation(id, { status: state.status, assigneeId: state.assigneeId });
  }

  /** Adds an internal note to a thread; errors come back as thrown. */
  async addNote(id: string, body: string): Promise<Note> {
    const note = await this.api.post<Note>(`/conversations/${encodeURIComponent(id)}/notes`, {
      body,
    });
    this.#set(withNote(this.#snapshot, note));
    return note;
  }

  /** Tells teammates the user is typing in a thread; at most one notice a second. */
  typing(id: string): void {
    const now = Date.now();
    if (now - this.#lastTypingSent < 1000) return;
    this.#lastTypingSent = now;
    this.#realtime?.send({ type: 'typing', conversationId: id });
  }

  /** The name of a teammate, or null. */
  teammateName(id: string | null): string | null {
    return this.#snapshot.teammates?.find((t) => t.id === id)?.name ?? null;
  }

  /** Marks a conversation read for the signed-in user, on each of their devices. */
  async markRead(id: string): Promise<void> {
    this.#patchConversation(id, { unreadCount: 0 });
    await this.api.post(`/conversations/${encodeURIComponent(id)}/read`).catch(() => undefined);
  }

  /**
   * Sends through the public API's send flow, as the signed-in user; errors come back as
   * thrown. Offline (or when the answer is lost), the text waits in the outbox under the key
   * it was first tried with, and null is returned.
   */
  async send(input: SendInput): Promise<Message | null> {
    const key = newKey();
    if (navigator.onLine) {
      try {
        const message = await this.api.post<Message>('/messages', input, {
          'idempotency-key': key,
        });
        this.#addMessage(message, null);
        return message;
      } catch (error) {
        if (!(error instanceof ApiRequestError && error.type === 'network_error')) throw error;
      }
    }
    const item: QueuedText = {
      key,
      input,
      conversationId: input.conversationId ?? this.#directThreadOf(input.to),
      queuedAt: new Date().toISOString(),
    };
    this.#outbox?.add(item);
    this.#set({ outbox: [...this.#snapshot.outbox, item] });
    this.#announce('Offline: the text waits in the outbox and is sent once you are back online.');
    // Online but unanswered (a dropped connection): try again soon, under the same key.
    if (navigator.onLine) setTimeout(() => void this.flushOutbox(), RETRY_OUTBOX_MS);
    return null;
  }

  #directThreadOf(to: string | string[] | undefined): string | null {
    if (typeof to !== 'string') return null;
    const found = this.#snapshot.conversations?.find(
      (c) => c.kind === 'direct' && c.participants[0]?.phone === to,
    );
    return found?.id ?? null;
  }

  /** Sends what waits in the outbox (on every (re)connection). */
  async flushOutbox(): Promise<void> {
    if (!this.#outbox || this.#snapshot.outbox.length === 0) return;
    const done = (item: QueuedText) =>
      this.#set({ outbox: this.#snapshot.outbox.filter((i) => i.key !== item.key) });
    await this.#outbox.flush(
      this.api,
      (item, message) => {
        done(item);
        this.#addMessage(message, null);
      },
      (item, error) => {
        done(item);
        this.#announce(`A queued text was not sent: ${error.message}`);
      },
    );
  }

  /** Which of these numbers texted STOP (asked before a send that would drop them). */
  async optedOutAmong(phones: string[]): Promise<string[]> {
    const { data } = await this.api.get<ListOf<string>>('/opted-out', { phones: phones.join(',') });
    return data;
  }

  /** Adds a contact to the shared directory. */
  async createContact(input: ContactInput & { phone: string }): Promise<Contact> {
    const contact = await this.api.post<Contact>('/contacts', input);
    this.#upsertContact(contact);
    return contact;
  }

  /** Changes a contact; its name becomes the caller ID of its phone everywhere. */
  async updateContact(id: string, patch: ContactInput): Promise<Contact> {
    const contact = await this.api.post<Contact>(`/contacts/${encodeURIComponent(id)}`, patch);
    this.#upsertContact(contact);
    return contact;
  }

  /** Removes a contact from the directory. */
  async deleteContact(id: string): Promise<void> {
    await this.api.del(`/contacts/${encodeURIComponent(id)}`);
    this.#dropContact(id);
  }

  /** Merges a duplicate into a contact (empty fields filled from it) and removes the duplicate. */
  async mergeContacts(keepId: string, duplicateId: string): Promise<Contact> {
    const contact = await this.api.post<Contact>(`/contacts/${encodeURIComponent(keepId)}/merge`, {
      duplicateId,
    });
    this.#dropContact(duplicateId);
    this.#upsertContact(contact);
    return contact;
  }

  #apply(push: Push): void {
    switch (push.type) {
      case 'hello':
        void this.refreshAll();
        void this.flushOutbox();
        return;
      case 'message.created':
        this.#notePush(push.message);
        this.#addMessage(push.message, push.contactName ?? null);
        return;
      case 'message.updated':
        this.#notePush(push.message);
        this.#set(withUpdatedMessage(this.#snapshot, push.message));
        return;
      case 'call.created': {
        const call: CallLogEntry = { ...push.call, contactName: push.contactName };
        const calls = this.#snapshot.calls ?? [];
        if (calls.some((c) => c.id === call.id)) return;
        this.#set({ calls: [call, ...calls] });
        if (call.status === 'missed' && call.direction === 'inbound') {
          this.#announce(`Missed call from ${this.label(call.from, call.contactName)}`);
        }
        if (call.direction === 'inbound') {
          this.#alert({
            kind: 'call',
            title: call.status === 'missed' ? 'Missed call' : 'Call',
            body: this.label(call.from, call.contactName),
            conversationId: null,
            mine: false,
          });
        }
        return;
      }
      case 'contact.changed':
        this.#upsertContact(push.contact);
        return;
      case 'conversation.read':
      case 'conversation.unread':
      case 'conversation.updated':
      case 'note.created':
      case 'typing': {
        const { patch, alert } = applyTeamPush(this.#snapshot, push, this.#userId, Date.now());
        this.#set(patch);
        if (alert) this.#alert(alert);
        if (push.type === 'typing') setTimeout(() => this.#expireTyping(), TYPING_SHOWN_MS + 50);
        return;
      }
      case 'contact.deleted':
        this.#dropContact(push.id);
        return;
      case 'opt-out.changed':
        this.#set(withOptOut(this.#snapshot, push.phone, push.optedOut));
        return;
    }
  }

  #conversation(id: string): Conversation | undefined {
    return this.#snapshot.conversations?.find((c) => c.id === id);
  }

  #expireTyping(): void {
    this.#set(withoutExpiredTyping(this.#snapshot, Date.now()));
  }

  /** Keeps a pushed message for the loads of its thread in flight (see withPushes). */
  #notePush(message: Message): void {
    for (const pushed of this.#pushedWhileLoading.get(message.conversationId) ?? []) {
      pushed.set(message.id, message);
    }
  }

  #addMessage(message: Message, contactName: string | null): void {
    const id = message.conversationId;
    const thread = this.#snapshot.threads[id];
    if (thread && !thread.some((m) => m.id === message.id)) {
      this.#set({ threads: { ...this.#snapshot.threads, [id]: [...thread, message] } });
    }
    const row = this.#snapshot.conversations?.find((c) => c.id === id);
    if (!row) {
      // A new conversation: the list answer carries its parties and their names.
      void this.loadConversations().catch(() => undefined);
    } else if (row.lastMessage?.id !== message.id) {
      const inbound = message.direction === 'inbound';
      const reading = id === this.#open && document.visibilityState === 'visible';
      this.#upsertConversation({
        ...row,
        lastMessage: message,
        lastMessageAt:
          message.createdAt > row.lastMessageAt ? message.createdAt : row.lastMessageAt,
        unreadCount: inbound && !reading ? row.unreadCount + 1 : row.unreadCount,
      });
      if (inbound && reading) void this.markRead(id);
    }
    // The open thread is a log region of its own; announcing its messages would say them twice.
    if (message.direction === 'inbound' && id !== this.#open) {
      const text = message.body || 'a picture';
      this.#announce(`New message from ${this.label(message.from, contactName)}: ${text}`);
    }
    if (message.direction === 'inbound') {
      const assignee = this.#conversation(id)?.assigneeId ?? null;
      this.#alert({
        kind: 'text',
        title: this.label(message.from, contactName),
        body: message.body || 'a picture',
        conversationId: id,
        mine: assignee !== null && assignee === this.#userId,
      });
    }
  }

  #upsertConversation(conversation: Conversation): void {
    this.#set(withConversation(this.#snapshot, conversation));
  }

  #patchConversation(id: string, patch: Partial<Conversation>): void {
    this.#set(withPatchedConversation(this.#snapshot, id, patch));
  }

  #dropContact(id: string): void {
    this.#set(withoutContact(this.#snapshot, id));
  }

  #upsertContact(contact: Contact): void {
    this.#set(withContact(this.#snapshot, contact));
  }
}
