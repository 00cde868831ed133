import { HTTP_CARRIER_TYPES, type CarrierType } from '../domain/carrier-settings.ts';
import { presentTeammate } from '../presenters/teammate.ts';
import { listCarrierConnections } from '../store/repos/carrier-connections.ts';
import type { Mode } from '../domain/modes.ts';
import { isoTime } from '../presenters/time.ts';
import { findAccount } from '../store/repos/accounts.ts';
import { listApiKeys } from '../store/repos/api-keys.ts';
import { listOptOuts } from '../store/repos/opt-outs.ts';
import { listPhoneNumbers } from '../store/repos/phone-numbers.ts';
import { listUsers } from '../store/repos/users.ts';
import { scoped, type AccountScope, type Scope } from '../store/scope.ts';

// What the owners' dashboard and the softphone show of an account: its keys (never a
// secret, only a hint), numbers, opt-outs, team and settings.

/** The account's keys (of one mode, when given), newest first, as hints. */
export async function listKeyHints(scope: AccountScope, mode?: Mode) {
  const keys = await listApiKeys(scope, mode);
  return keys.map((k) => ({
    id: k.id,
    mode: k.mode,
    hint: `sk_${k.mode}_…${k.last4}`,
    createdAt: isoTime(k.created_at),
    lastUsedAt: k.last_used_at === null ? null : isoTime(k.last_used_at),
    revokedAt: k.revoked_at === null ? null : isoTime(k.revoked_at),
  }));
}

/** The scope's numbers, oldest first (the first is the default line). */
export async function listNumbers(scope: Scope) {
  const rows = await listPhoneNumbers(scope);
  return rows.map((n) => ({ id: n.id, phone: n.phone, createdAt: isoTime(n.created_at) }));
}

/** The scope's opt-out list, newest first. */
export async function listOptOutEntries(scope: Scope) {
  const rows = await listOptOuts(scope);
  return rows.map((o) => ({ phone: o.phone, optedOutAt: isoTime(o.created_at) }));
}

/** The account's team, oldest first. */
export async function listTeam(scope: AccountScope) {
  const users = await listUsers(scope);
  return users.map(presentTeammate);
}

/** The account as the softphone shows it: its name, HELP reply and numbers in both modes. */
export async function describeAccount(scope: AccountScope) {
  const [account, test, live, connections] = await Promise.all([
    findAccount(scope.db, scope.accountId),
    listPhoneNumbers(scoped(scope.db, { accountId: scope.accountId, mode: 'test' })),
    listPhoneNumbers(scoped(scope.db, { accountId: scope.accountId, mode: 'live' })),
    listCarrierConnections(scope),
  ]);
  return {
    account: {
      id: scope.accountId,
      name: account?.name ?? '',
      helpReply: account?.help_reply ?? null,
    },
    numbers: { test: test.map((n) => n.phone), live: live.map((n) => n.phone) },
    textOnly: textOnlyLines(live, connections),
  };
}

/**
 * The live numbers whose route carries no media (SMPP), where the softphone offers no picture:
 * a number's own connection, else the account's first, as `findLiveRoute` routes it. Test
 * numbers (the sandbox) all carry media.
 */
function textOnlyLines(
  live: readonly { phone: string; carrier_id: string | null }[],
  connections: readonly { id: string; type: CarrierType }[],
): string[] {
  return live
    .filter((n) => {
      const route = connections.find((c) => c.id === n.carrier_id) ?? connections[0];
      return route !== undefined && !HTTP_CARRIER_TYPES.includes(route.type);
    })
    .map((n) => n.phone);
}
