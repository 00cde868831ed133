// This instance's voice, announced in the shared store (voice_instances) while it runs, so the
// other instances fork inbound calls to its Kamailio and leave the calls its run holds alone.
import type { Changes } from '../commands/changes.ts';
import { VOICE_HEARTBEAT_MS } from '../domain/voice-presence.ts';
import type { Logger } from '../lib/logger.ts';
import { voiceRunId } from '../voice/ephemeral-credentials.ts';
import type { VoiceControl } from '../voice/voice-control.ts';

/** Announces now and every `intervalMs`; the returned function stops and withdraws it. */
export function startVoicePresence(
  voice: VoiceControl,
  changes: Changes,
  logger: Logger,
  intervalMs = VOICE_HEARTBEAT_MS,
): () => Promise<void> {
  const runId = voiceRunId(voice.secrets);
  let stopped = false;
  let last: Promise<unknown> = Promise.resolve();
  const announce = () => {
    const sipAddress = voice.endpoint?.peerAddress;
    if (stopped || !sipAddress) return;
    last = changes
      .run('announceVoiceInstance', { runId, sipAddress })
      .catch((error: unknown) => logger.error({ err: error }, 'voice instance not announced'));
  };
  announce();
  const timer = setInterval(announce, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await last;
    await changes
      .run('retireVoiceInstance', { runId })
      .catch((error: unknown) => logger.error({ err: error }, 'voice instance not withdrawn'));
  };
}
