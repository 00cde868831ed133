/** What a browser sends while its user types in a thread's composer or note. */
export interface TypingNotice {
  type: 'typing';
  conversationId: string;
}

/**
 * A client's message, if it is a typing notice. Anything else is ignored: the channel
 * carries changes to browsers, and this presence is its only message the other way. It
 * is not stored; it reaches teammates on every instance (`announceTyping`).
 */
export function typingNoticeFrom(data: unknown): TypingNotice | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(data));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { type, conversationId } = parsed as Record<string, unknown>;
  if (type !== 'typing' || typeof conversationId !== 'string') return null;
  if (!/^cv_[A-Za-z0-9]{1,60}$/.test(conversationId)) return null;
  return { type, conversationId };
}

/** At most one typing notice a second from each channel is passed on. */
export const TYPING_INTERVAL_MS = 1000;
