import type { Clock } from '../lib/clock.ts';
import type { Mode } from '../domain/modes.ts';

/** Who a command acts for: one account in one mode. */
export interface Actor {
  accountId: string;
  mode: Mode;
}

/** What commands need besides the transaction: time, injected so tests can fix it. */
export interface CommandDeps {
  clock: Clock;
}
