import type { CallView } from '../presenters/call.ts';
import { listOpenCalls, takeOpenCall, touchOpenCalls } from '../store/repos/open-calls.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { recordCall } from './record-call.ts';
import { liveVoiceInstances } from '../store/repos/voice-instances.ts';
import { VOICE_INSTANCE_STALE_MS } from '../domain/voice-presence.ts';

/** What the sweep knows of this run's Kamailio: the dialogs it held when asked, and when. */
export interface SweepOpenCallsInput {
  runId: string;
  /** Call-IDs of Kamailio's dialogs; null when it did not answer. */
  held: string[] | null;
  /** When Kamailio was asked: a call answered since is not judged on that list. */
  askedAt: number;
  /** A call nobody has seen running for this long is over. */
  staleMs: number;
  /** When calls were last seen running by the voice keeper while no serve ran (Call-ID: ms). */
  seenAt?: Record<string, number>;
}

/**
 * Keeps open calls true to what runs (docs/behaviour.md#voice): this run's calls that
 * Kamailio still holds are seen now; those it no longer holds (it restarted), and any call
 * nobody has seen for `staleMs` (its Switchboard or Kamailio is gone), are recorded as
 * completed, lasting from their answer to when they were last seen. Never lost.
 * A call of another run that is still announced (voice_instances) is that run's to judge: its
 * instance sees it in its own Kamailio, however long since this one last looked.
 */
export async function sweepOpenCalls(
  tx: WriteTx,
  input: SweepOpenCallsInput,
  deps: CommandDeps,
): Promise<{ closed: CallView[] }> {
  const now = deps.clock.now();
  const held = input.held ? new Set(input.held) : null;
  const open = await listOpenCalls(tx.db);
  const mine = open.filter((row) => row.run_id === input.runId);
  if (held) {
    const seen = mine.filter((row) => held.has(row.call_id)).map((row) => row.call_id);
    await touchOpenCalls(tx.db, input.runId, seen, now);
  }
  const alive = new Set(
    (await liveVoiceInstances(tx.db, now - VOICE_INSTANCE_STALE_MS)).map((row) => row.run_id),
  );
  const over = open.filter((row) => {
    const stale = row.seen_at < now - input.staleMs;
    if (row.run_id !== input.runId) return stale && !alive.has(row.run_id);
    return held ? !held.has(row.call_id) && row.answered_at < input.askedAt : stale;
  });
  const closed: CallView[] = [];
  for (const row of over) {
    if (!(await takeOpenCall(tx.db, row.call_id))) continue;
    const seenAt = Math.max(row.seen_at, input.seenAt?.[row.call_id] ?? 0);
    const duration = Math.max(0, Math.floor((seenAt - row.answered_at) / 1000));
    closed.push(
      await recordCall(
        tx,
        { accountId: row.account_id, mode: row.mode },
        {
          from: row.from_phone,
          to: row.to_phone,
          direction: row.direction,
          outcome: 'completed',
          duration,
        },
        deps,
      ),
    );
  }
  return { closed };
}
