import { ApiRequestError, type ApiClient } from './api.ts';
import type { Message } from '@switchboard/sdk';
import type { Mode } from './types.ts';

/** A text typed while the server could not be reached, waiting to go out. */
export interface QueuedText {
  /** The Idempotency-Key it is sent with, every time: however often it is retried, it goes once. */
  key: string;
  input: {
    from: string;
    to?: string | string[];
    conversationId?: string;
    body?: string;
    mediaUrls?: string[];
  };
  /** The thread it shows in while it waits, when known. */
  conversationId: string | null;
  queuedAt: string;
}

const storageKey = (userId: string, mode: Mode) => `switchboard.outbox.${userId}.${mode}`;

/** The outbox of one user and mode, kept in localStorage so it survives a closed app. */
export class Outbox {
  readonly #key: string;
  #sending = false;

  constructor(userId: string, mode: Mode) {
    this.#key = storageKey(userId, mode);
  }

  list(): QueuedText[] {
    try {
      return JSON.parse(window.localStorage.getItem(this.#key) ?? '[]') as QueuedText[];
    } catch {
      return [];
    }
  }

  #save(items: QueuedText[]): void {
    try {
      if (items.length === 0) window.localStorage.removeItem(this.#key);
      else window.localStorage.setItem(this.#key, JSON.stringify(items));
    } catch {
      // Refused storage: the text stays only as long as this tab.
    }
  }

  add(item: QueuedText): void {
    this.#save([...this.list().filter((i) => i.key !== item.key), item]);
  }

  /**
   * Sends what waits, oldest first, each with its own key. Stops at the first network failure
   * (still offline) or server error (retried later); a refusal (4xx) is dropped and reported.
   */
  async flush(
    api: ApiClient,
    onSent: (item: QueuedText, message: Message) => void,
    onRefused: (item: QueuedText, error: ApiRequestError) => void,
  ): Promise<void> {
    if (this.#sending) return;
    this.#sending = true;
    try {
      for (const item of this.list()) {
        try {
          const message = await api.post<Message>('/messages', item.input, {
            'idempotency-key': item.key,
          });
          this.#save(this.list().filter((i) => i.key !== item.key));
          onSent(item, message);
        } catch (error) {
          const refused =
            error instanceof ApiRequestError && error.status >= 400 && error.status < 500;
          if (!refused || error.status === 401 || error.status === 429) return;
          this.#save(this.list().filter((i) => i.key !== item.key));
          onRefused(item, error);
        }
      }
    } finally {
      this.#sending = false;
    }
  }
}

/** A fresh idempotency key (randomUUID needs a secure context; the fallback does not). */
export function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('');
}
