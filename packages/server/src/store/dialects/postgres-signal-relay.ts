import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Signal } from '../write-queue.ts';

/** The channel committed signals travel on between processes sharing one database. */
export const SIGNAL_CHANNEL = 'switchboard_signals';

// NOTIFY payloads must stay under 8000 bytes.
const MAX_PAYLOAD_BYTES = 7500;

/**
 * Signals that only wake a worker: a listener does the same however many it hears. Every
 * other signal says how something is now (a conversation read, a message's status), and
 * a repeat of one after another signal says it again: `conversation.read`, an inbound
 * `message.created` that makes the thread unread, then `conversation.read` once more.
 */
const WAKE_UPS = new Set(['outbound.queued', 'outbound.submitted', 'webhook.pending']);

/**
 * A committed batch's signals as the payloads of its notifications to every other
 * process (PostgreSQL NOTIFY, sent inside the transaction, so only a commit is heard),
 * packed into as few as the size limit allows: each is the sender's origin, a space,
 * and a JSON array of `[topic, payload]` entries, so a listener tells its own
 * notifications by their first characters without parsing them. Within a batch, a
 * wake-up (WAKE_UPS) equal to the last of its topic is left out. A single signal too
 * large for one notification is not relayed: clients of other instances pick it up when
 * they next refetch, and workers on their next poll.
 */
export function notifyPayloads(origin: string, signals: Signal[]): string[] {
  const payloads: string[] = [];
  let entries: string[] = [];
  let size = 0;
  const send = () => {
    if (entries.length === 0) return;
    payloads.push(`${origin} [${entries.join(',')}]`);
    entries = [];
    size = 0;
  };
  // A wake-up equal to the last of its topic wakes no one more (a batch of sixteen sends
  // woke the carrier's dispatcher sixteen times), so it is left out.
  const lastWakeUp = new Map<string, string>();
  for (const { topic, payload } of signals) {
    const entry = JSON.stringify([topic, payload]);
    if (WAKE_UPS.has(topic)) {
      if (lastWakeUp.get(topic) === entry) continue;
      lastWakeUp.set(topic, entry);
    }
    // Room is left for the origin (a UUID), the brackets and the commas.
    const bytes = Buffer.byteLength(entry) + 1;
    if (bytes > MAX_PAYLOAD_BYTES - 64) continue;
    if (size + bytes > MAX_PAYLOAD_BYTES - 64) send();
    entries.push(entry);
    size += bytes;
  }
  send();
  return payloads;
}

/**
 * Sends payloads on SIGNAL_CHANNEL, in their order, as one statement whatever their
 * number, prepared once per connection. They are a parameter, not SQL literals that
 * would be escaped character by character here and read back by the server.
 */
export const NOTIFY_QUERY = {
  name: 'sb_notify',
  text: `select pg_notify('${SIGNAL_CHANNEL}', payload) from unnest($1::text[]) as payload`,
};

/** A process's identity on the signal channel, so it ignores its own notifications. */
export function newOrigin(): string {
  return randomUUID();
}

/**
 * Listens on SIGNAL_CHANNEL with a dedicated connection and hands every other
 * process's signals to `emit`; reconnects a second after losing the connection.
 */
export function listenForSignals(
  connectionString: string,
  origin: string,
  emit: (topic: string, payload: unknown) => void,
  onError: (error: unknown) => void = () => {},
): { close(): Promise<void> } {
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let closed = false;

  const connect = () => {
    if (closed) return;
    const next = new pg.Client({ connectionString });
    client = next;
    const lost = (error?: unknown) => {
      if (client !== next) return;
      if (error) onError(error);
      client = null;
      next.end().catch(() => {});
      if (!closed) {
        retry = setTimeout(connect, 1000);
        retry.unref();
      }
    };
    next.on('notification', (notification) => {
      const message = notification.payload;
      // Its own commits' signals were emitted here already.
      if (!message || message.startsWith(origin)) return;
      try {
        const entries = JSON.parse(message.slice(message.indexOf(' ') + 1)) as [string, unknown][];
        for (const [topic, payload] of entries) emit(topic, payload);
      } catch (error) {
        onError(error);
      }
    });
    next.on('error', lost);
    next.on('end', () => lost());
    next
      .connect()
      .then(() => next.query(`LISTEN ${SIGNAL_CHANNEL}`))
      .catch(lost);
  };
  connect();

  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
