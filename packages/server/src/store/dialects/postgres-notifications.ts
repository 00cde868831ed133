import pg from 'pg';

/** The channel every Switchboard process listens on for changes that invalidate caches. */
export const INVALIDATION_CHANNEL = 'switchboard_invalidate';

/** A LISTEN connection, started on first use, that turns notifications into a version number. */
export interface NotificationFollower {
  /**
   * Moves on every notification. While the connection is not listening (starting,
   * or lost and reconnecting) it moves on every call, so a cache that compares
   * versions never trusts itself in a window where it could miss a notification.
   */
  version(): number;
  close(): Promise<void>;
}

/** Listens on INVALIDATION_CHANNEL with a dedicated client, reconnecting after a second when lost. */
export function followNotifications(
  connectionString: string,
  onError: (error: unknown) => void = () => {},
): NotificationFollower {
  let version = 0;
  let listening = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let closed = false;

  const connect = () => {
    if (closed || client) return;
    const next = new pg.Client({ connectionString });
    client = next;
    const lost = (error?: unknown) => {
      if (client !== next) return;
      if (error) onError(error);
      listening = false;
      client = null;
      next.end().catch(() => {});
      if (!closed) {
        retry = setTimeout(connect, 1000);
        retry.unref();
      }
    };
    next.on('notification', () => version++);
    next.on('error', lost);
    next.on('end', () => lost());
    next
      .connect()
      .then(() => next.query(`LISTEN ${INVALIDATION_CHANNEL}`))
      .then(() => {
        if (client !== next) return;
        version++;
        listening = true;
      })
      .catch(lost);
  };

  return {
    version() {
      if (listening) return version;
      connect();
      return ++version;
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const current = client;
      client = null;
      listening = false;
      await current?.end().catch(() => {});
    },
  };
}
