// A long text sent as several carrier messages has one status (docs/behaviour.md#carrier-connections):
// failed as soon as one part fails (with that part's reason), delivered once every part is,
// sent until then.
import type { FailureReason } from './message-status.ts';

export interface PartState {
  status: 'sent' | 'delivered' | 'failed';
  failureReason: FailureReason | null;
}

/** The status of the whole text, from its parts' in order. */
export function wholeTextStatus(parts: readonly PartState[]): PartState {
  const failed = parts.find((p) => p.status === 'failed');
  if (failed)
    return { status: 'failed', failureReason: failed.failureReason ?? 'carrier_rejected' };
  if (parts.length > 0 && parts.every((p) => p.status === 'delivered')) {
    return { status: 'delivered', failureReason: null };
  }
  return { status: 'sent', failureReason: null };
}
