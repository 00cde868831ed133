import type { CallView } from '../presenters/call.ts';
import { takeOpenCall } from '../store/repos/open-calls.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { Actor, CommandDeps } from './context.ts';
import { recordCall, type RecordCallInput } from './record-call.ts';

/** Records a call whose end Kamailio reported, and forgets it as open. */
export async function endCall(
  tx: WriteTx,
  input: { actor: Actor; callId: string; call: RecordCallInput },
  deps: CommandDeps,
): Promise<CallView> {
  await takeOpenCall(tx.db, input.callId);
  return recordCall(tx, input.actor, input.call, deps);
}
