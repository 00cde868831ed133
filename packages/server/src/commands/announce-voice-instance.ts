import { deleteStaleVoiceInstances, upsertVoiceInstance } from '../store/repos/voice-instances.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { VOICE_INSTANCE_STALE_MS } from '../domain/voice-presence.ts';

/** This instance's voice run and where its peers reach its Kamailio (`host:port`, UDP). */
export interface VoiceInstanceInput {
  runId: string;
  sipAddress: string;
}

/**
 * Says this instance's voice is alive (every few seconds, http/voice-presence.ts), so other
 * instances fork inbound calls to its Kamailio; removes the rows of instances gone silent.
 */
export async function announceVoiceInstance(
  tx: WriteTx,
  input: VoiceInstanceInput,
  deps: CommandDeps,
): Promise<{ runId: string }> {
  const now = deps.clock.now();
  await upsertVoiceInstance(tx.db, {
    run_id: input.runId,
    sip_address: input.sipAddress,
    seen_at: now,
  });
  await deleteStaleVoiceInstances(tx.db, now - VOICE_INSTANCE_STALE_MS);
  return { runId: input.runId };
}
