import type { WriteTx } from '../store/engine/write-queue.ts';
import type { Actor } from './context.ts';

/** The store signal a typing notice travels as. */
export const TYPING_SIGNAL = 'typing';

/** Who is typing in which thread, as the realtime channel tells their teammates. */
export interface TypingAnnouncement extends Actor {
  conversationId: string;
  user: { id: string; name: string };
}

/**
 * Passes a typing notice to every instance sharing the database: it writes nothing, and
 * the commit carries it as a signal to the others (store/engine/postgres-signal-relay.ts).
 */
export function announceTyping(
  tx: WriteTx,
  notice: TypingAnnouncement,
): Promise<TypingAnnouncement> {
  tx.publish(TYPING_SIGNAL, notice);
  return Promise.resolve(notice);
}
