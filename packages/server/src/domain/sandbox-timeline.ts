import type { FailureReason } from './message-status.ts';

/** One report the sandbox carrier will make, `afterMs` after submission. */
export interface SandboxStep {
  status: 'sent' | 'delivered' | 'failed';
  failureReason: FailureReason | null;
  afterMs: number;
}

/** Sandbox magic recipients (docs/behaviour.md#magic-recipients): each behaves one way, always. */
export const SANDBOX_MAGIC_NUMBERS = {
  invalidNumber: '+15005550001',
  carrierRejected: '+15005550002',
  neverDelivered: '+15005550003',
} as const;

/**
 * What happens to a sandbox submission: `queued → sent → delivered`, one
 * `delayMs` per step, except for the magic recipients, which fail with
 * `invalid_number` or `carrier_rejected`, or reach `sent` and stop there.
 */
export function sandboxTimeline(to: string, delayMs: number): SandboxStep[] {
  switch (to) {
    case SANDBOX_MAGIC_NUMBERS.invalidNumber:
      return [{ status: 'failed', failureReason: 'invalid_number', afterMs: delayMs }];
    case SANDBOX_MAGIC_NUMBERS.carrierRejected:
      return [{ status: 'failed', failureReason: 'carrier_rejected', afterMs: delayMs }];
    case SANDBOX_MAGIC_NUMBERS.neverDelivered:
      return [{ status: 'sent', failureReason: null, afterMs: delayMs }];
    default:
      return [
        { status: 'sent', failureReason: null, afterMs: delayMs },
        { status: 'delivered', failureReason: null, afterMs: 2 * delayMs },
      ];
  }
}
