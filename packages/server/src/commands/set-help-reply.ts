import { validationError } from '../domain/errors.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';

/** Longest HELP reply: it must fit a couple of SMS segments. */
export const MAX_HELP_REPLY = 320;

/** Sets the text an account sends in answer to HELP/INFO; null restores the default. */
export async function setHelpReply(
  tx: WriteTx,
  accountId: string,
  text: string | null,
): Promise<{ helpReply: string | null }> {
  const value = text?.trim() || null;
  if (value !== null && value.length > MAX_HELP_REPLY) {
    throw validationError(
      'helpReply',
      `The HELP reply may hold at most ${MAX_HELP_REPLY} characters.`,
    );
  }
  await tx.db
    .updateTable('accounts')
    .set({ help_reply: value })
    .where('id', '=', accountId)
    .execute();
  return { helpReply: value };
}
