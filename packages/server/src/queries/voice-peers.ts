import type { Kysely } from 'kysely';
import { VOICE_INSTANCE_STALE_MS } from '../domain/voice-presence.ts';
import type { DB } from '../store/schema.ts';
import { liveVoiceInstances } from '../store/repos/voice-instances.ts';

/** Where the other live voice instances take SIP (`host:port`), all but run `runId`'s. */
export async function voicePeers(db: Kysely<DB>, runId: string, now: number): Promise<string[]> {
  const rows = await liveVoiceInstances(db, now - VOICE_INSTANCE_STALE_MS);
  return rows.filter((row) => row.run_id !== runId).map((row) => row.sip_address);
}
