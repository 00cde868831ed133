import type { Clock } from '../lib/clock.ts';
import type { Mode } from '../domain/modes.ts';

/** Who a command acts for: one account in one mode. */
export interface Actor {
  accountId: string;
  mode: Mode;
}

/** Only the account and mode of an actor (a principal may carry more, such as its key id). */
export function scopeOf(actor: Actor): Actor {
  return { accountId: actor.accountId, mode: actor.mode };
}

/** What commands need besides the transaction: time, injected so tests can fix it. */
export interface CommandDeps {
  clock: Clock;
}

/** A URL check's verdict (https, public address), worded for a 422. */
export type UrlVerdict = { ok: true } | { ok: false; reason: string };

/** What webhook commands need besides time: sealing secrets and checking URLs, both I/O kept outside. */
export interface WebhookDeps extends CommandDeps {
  seal(secret: string): string;
  /** Opens what `seal` sealed (a recorded idempotent answer that carries a secret). */
  open(sealed: string): string;
  newSecret(): string;
  checkUrl(url: string): Promise<UrlVerdict>;
}
