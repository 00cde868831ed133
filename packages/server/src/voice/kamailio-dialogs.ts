// Kamailio's dialogs over its JSON-RPC (`dlg.list`, guarded by the run's control token): what
// the open-call sweep (http/voice-call-sweep.ts) and the voice keeper ask of calls in progress.
import type { VoiceControl } from './voice-control.ts';

/** Kamailio's dialog state of a call that has ended. */
const DELETED = 5;

/**
 * The Call-IDs of the calls Kamailio holds (its dialogs not yet deleted: an ended one is listed
 * a while longer, in state 5); null when it does not answer in 3 s.
 */
export async function kamailioDialogs(voice: {
  secrets: VoiceControl['secrets'];
  endpoint: { wsUrl: string } | null;
}): Promise<string[] | null> {
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
    const body = (await res.json()) as { result?: { 'call-id'?: string; state?: number }[] };
    return (body.result ?? []).flatMap((d) =>
      d['call-id'] && d.state !== DELETED ? [d['call-id']] : [],
    );
  } catch {
    return null;
  }
}
