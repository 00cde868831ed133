import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Signal } from '../write-queue.ts';

/** The channel committed signals travel on between processes sharing one database. */
export const SIGNAL_CHANNEL = 'switchboard_signals';

// NOTIFY payloads must stay under 8000 bytes.
const MAX_PAYLOAD_BYTES = 7500;

/**
 * The statements that send a committed batch's signals to every other process
 * (PostgreSQL NOTIFY, run inside the transaction, so only a commit is heard),
 * packed into as few notifications as the size limit allows: SQL text with its
 * values as literals, each statement ending in `;`, to go in one query with the
 * COMMIT (dialects/postgres-lane.ts), or '' when there is nothing to send. A single
 * signal too large for one notification is not relayed: clients of other instances
 * pick it up when they next refetch, and workers on their next poll.
 */
export function notifyStatements(origin: string, signals: Signal[]): string {
  let statements = '';
  let chunk: [string, unknown][] = [];
  let size = 0;
  const send = () => {
    if (chunk.length === 0) return;
    const message = JSON.stringify({ o: origin, s: chunk });
    statements += `select pg_notify('${SIGNAL_CHANNEL}', ${pg.escapeLiteral(message)});`;
    chunk = [];
    size = 0;
  };
  for (const { topic, payload } of signals) {
    const entry: [string, unknown] = [topic, payload];
    const bytes = Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (bytes > MAX_PAYLOAD_BYTES - 64) continue;
    if (size + bytes > MAX_PAYLOAD_BYTES - 64) send();
    chunk.push(entry);
    size += bytes;
  }
  send();
  return statements;
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
