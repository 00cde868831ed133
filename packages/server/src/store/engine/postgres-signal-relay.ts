import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Signal } from './write-queue.ts';

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
 * The `application_name` of every listening connection: how an instance finds, in
 * `pg_stat_activity`, whether any other instance listens.
 */
export const LISTENER_NAME = 'switchboard-signals';

/** How often a listener looks for other listeners, by default. */
const PRESENCE_POLL_MS = 1000;

const OTHERS_LISTENING = `select exists (select 1 from pg_stat_activity
  where datname = current_database() and application_name = '${LISTENER_NAME}'
    and pid <> pg_backend_pid()) as others`;

/** How a process's committed signals reach the others sharing its database. */
export interface SignalRelay {
  /** This process's identity on SIGNAL_CHANNEL. */
  readonly origin: string;
  /**
   * False only while no other instance is known to listen: a batch then sends no
   * NOTIFYs, which cost both this process and the server on every commit (a process
   * alone hears its own notifications back, only to pass over them).
   */
  othersListening(): boolean;
}

/** A relay as a store holds it: listening (or not) until it is closed. */
export type OpenRelay = SignalRelay & { listening: Promise<void>; close(): Promise<void> };

/** A process that does not listen (a CLI command): its signals always go out. */
export function alwaysRelay(origin: string): OpenRelay {
  return {
    origin,
    othersListening: () => true,
    listening: Promise.resolve(),
    close: async () => {},
  };
}

/**
 * Listens on SIGNAL_CHANNEL with a dedicated connection and hands every other
 * process's signals to `emit`; reconnects a second after losing the connection.
 * `listening` resolves once it first listens and has announced itself, or its first
 * attempt failed.
 *
 * It also tells whether any other instance listens, for `othersListening`. Its
 * connection names itself LISTENER_NAME (with `set application_name`, which a
 * connection string's own `application_name` cannot override), and it looks in
 * `pg_stat_activity` for another one every `presencePollMs`. An instance that starts
 * announces itself once it listens (a notification with no signals), so the others
 * relay from the moment they hear it, not a poll later; a notification from any other
 * process (a command, which does not listen) does the same until the next look. Until
 * its first look, while its connection is lost, and when a look fails, it relays.
 */
export function listenForSignals(
  connectionString: string,
  origin: string,
  emit: (topic: string, payload: unknown) => void,
  onError: (error: unknown) => void = () => {},
  { presencePollMs = PRESENCE_POLL_MS }: { presencePollMs?: number } = {},
): OpenRelay {
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let poll: NodeJS.Timeout | null = null;
  let closed = false;
  let others = true;
  /** Notifications heard from other processes, so a look knows if one came meanwhile. */
  let heard = 0;
  let lookFailed = false;
  let announced!: () => void;
  const listening = new Promise<void>((resolve) => (announced = resolve));

  const lookForOthers = (current: pg.Client) => {
    poll = null;
    if (client !== current) return;
    const heardBefore = heard;
    const next = () => {
      poll = setTimeout(lookForOthers, presencePollMs, current);
      poll.unref();
    };
    current.query<{ others: boolean }>(OTHERS_LISTENING).then(
      ({ rows }) => {
        if (client !== current) return;
        // An answer that predates a notification heard meanwhile does not say no one is there.
        others = rows[0]!.others || heard !== heardBefore;
        next();
      },
      // Not known: relay, and look again (a lost connection reconnects on its own).
      (error: unknown) => {
        if (client !== current) return;
        if (!lookFailed) onError(error);
        lookFailed = true;
        others = true;
        next();
      },
    );
  };

  const connect = () => {
    if (closed) return;
    const next = new pg.Client({ connectionString, application_name: LISTENER_NAME });
    client = next;
    const lost = (error?: unknown) => {
      if (client !== next) return;
      if (error) onError(error);
      client = null;
      others = true;
      if (poll) clearTimeout(poll);
      poll = null;
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
      others = true;
      heard++;
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
      .then(() =>
        next.query(`set application_name to '${LISTENER_NAME}'; LISTEN ${SIGNAL_CHANNEL}`),
      )
      .then(() => next.query(`select pg_notify('${SIGNAL_CHANNEL}', $1)`, [`${origin} []`]))
      .then(() => {
        announced();
        lookForOthers(next);
      })
      .catch((error: unknown) => {
        announced();
        lost(error);
      });
  };
  connect();

  return {
    origin,
    othersListening: () => others,
    listening,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      if (poll) clearTimeout(poll);
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
