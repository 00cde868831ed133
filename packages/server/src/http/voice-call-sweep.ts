// Open calls kept true to what Kamailio holds (commands/sweep-open-calls.ts): asked every
// interval over Kamailio's JSON-RPC (`dlg.list`, guarded by this run's token), and once at start.
import type { Logger } from '../lib/logger.ts';
import { voiceRunId } from '../voice/ephemeral-credentials.ts';
import type { VoiceControl } from '../voice/voice-control.ts';
import type { Changes } from '../commands/changes.ts';

/** The Call-IDs of the dialogs Kamailio holds; null when it does not answer in 3 s. */
export async function kamailioDialogs(voice: VoiceControl): Promise<string[] | null> {
  if (!voice.endpoint) return null;
  const url = voice.endpoint.wsUrl.replace(/^ws/, 'http') + '/RPC';
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-switchboard-voice': voice.secrets.controlToken,
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'dlg.list', id: 1 }),
      signal: AbortSignal.timeout(3000),
    });
    if (!res.ok) return null;
    const body = (await res.json()) as { result?: { 'call-id'?: string }[] };
    return (body.result ?? []).flatMap((d) => (d['call-id'] ? [d['call-id']] : []));
  } catch {
    return null;
  }
}

/** Asks Kamailio once and sweeps; what was closed. */
export async function sweepCalls(voice: VoiceControl, changes: Changes, intervalMs: number) {
  const askedAt = Date.now();
  const held = await kamailioDialogs(voice);
  return changes.run('sweepOpenCalls', {
    runId: voiceRunId(voice.secrets),
    held,
    askedAt,
    staleMs: 2 * intervalMs,
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
