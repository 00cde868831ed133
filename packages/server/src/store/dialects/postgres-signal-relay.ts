import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { DB } from '../schema.ts';

/** The channel committed signals travel on between processes sharing one database. */
export const SIGNAL_CHANNEL = 'switchboard_signals';

// NOTIFY payloads must stay under 8000 bytes.
const MAX_PAYLOAD_BYTES = 7500;

/** A signal as `tx.publish` made it. */
export interface Signal {
  topic: string;
  payload: unknown;
}

/**
 * Sends a committed batch's signals to every other process (PostgreSQL NOTIFY,
 * inside the transaction, so only a commit is heard), packed into as few
 * notifications as the size limit allows. A single signal too large for one
 * notification is not relayed: clients of other instances pick it up when
 * they next refetch, and workers on their next poll.
 */
export async function relaySignals(
  db: Kysely<DB>,
  origin: string,
  signals: Signal[],
): Promise<void> {
  let chunk: [string, unknown][] = [];
  let size = 0;
  const send = async () => {
    if (chunk.length === 0) return;
    const message = JSON.stringify({ o: origin, s: chunk });
    await sql`select pg_notify(${SIGNAL_CHANNEL}, ${message})`.execute(db);
    chunk = [];
    size = 0;
  };
  for (const { topic, payload } of signals) {
    const entry: [string, unknown] = [topic, payload];
    const bytes = Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (bytes > MAX_PAYLOAD_BYTES - 64) continue;
    if (size + bytes > MAX_PAYLOAD_BYTES - 64) await send();
    chunk.push(entry);
    size += bytes;
  }
  await send();
}

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
      if (!notification.payload) return;
      try {
        const { o, s } = JSON.parse(notification.payload) as { o: string; s: [string, unknown][] };
        if (o === origin) return;
        for (const [topic, payload] of s) emit(topic, payload);
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
