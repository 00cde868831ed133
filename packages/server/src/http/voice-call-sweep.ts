// Open calls kept true to what Kamailio holds (commands/sweep-open-calls.ts): asked every
// interval over Kamailio's JSON-RPC (`dlg.list`, guarded by this run's token), and once at start.
import type { Logger } from '../lib/logger.ts';
import { voiceRunId } from '../voice/ephemeral-credentials.ts';
import type { VoiceControl } from '../voice/voice-control.ts';
import { kamailioDialogs } from '../voice/kamailio-dialogs.ts';
import type { Changes } from '../commands/changes.ts';

/** Asks Kamailio once and sweeps; what was closed. */
export async function sweepCalls(voice: VoiceControl, changes: Changes, intervalMs: number) {
  const askedAt = Date.now();
  const held = await kamailioDialogs(voice);
  const seenAt = voice.seenWhileAway;
  delete voice.seenWhileAway;
  return changes.run('sweepOpenCalls', {
    runId: voiceRunId(voice.secrets),
    held,
    askedAt,
    staleMs: 2 * intervalMs,
    ...(seenAt ? { seenAt } : {}),
  });
}

/** Sweeps now and every `intervalMs` until the returned function is called. */
export function startCallSweep(
  voice: VoiceControl,
  changes: Changes,
  logger: Logger,
  intervalMs = 30_000,
): () => void {
  const sweep = () =>
    void sweepCalls(voice, changes, intervalMs).catch((error: unknown) =>
      logger.error({ err: error }, 'open calls not swept'),
    );
  sweep();
  const timer = setInterval(sweep, intervalMs);
  return () => clearInterval(timer);
}
