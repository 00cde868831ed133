import { deleteVoiceInstance } from '../store/repos/voice-instances.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';

/** This instance's voice stops: no peer forks calls to it any more. */
export async function retireVoiceInstance(
  tx: WriteTx,
  input: { runId: string },
): Promise<{ runId: string }> {
  await deleteVoiceInstance(tx.db, input.runId);
  return { runId: input.runId };
}
