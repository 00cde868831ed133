import { isMode } from '../domain/modes.ts';
import { validationError } from '../domain/errors.ts';
import { insertOpenCall } from '../store/repos/open-calls.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';

/** An answered call as Kamailio reports it (its dialog started). */
export interface OpenCallInput {
  callId: string;
  runId: string;
  accountId: string;
  mode: string;
  from: string;
  to: string;
  direction: 'inbound' | 'outbound';
}

/**
 * Keeps an answered call until its end is seen (`endCall`), so a call whose end is never
 * seen is still recorded, with the time it was last known to run (docs/behaviour.md#voice).
 */
export async function openCall(
  tx: WriteTx,
  input: OpenCallInput,
  deps: CommandDeps,
): Promise<{ callId: string }> {
  if (!isMode(input.mode)) throw validationError('aor', 'aor must be "account.mode".');
  const now = deps.clock.now();
  await insertOpenCall(tx.db, {
    call_id: input.callId,
    run_id: input.runId,
    account_id: input.accountId,
    mode: input.mode,
    from_phone: input.from,
    to_phone: input.to,
    direction: input.direction,
    answered_at: now,
    seen_at: now,
  });
  return { callId: input.callId };
}
