import { newId } from '../lib/ids.ts';
import { ApiError, validationError } from '../domain/errors.ts';
import type { Mode } from '../domain/modes.ts';
import { isE164 } from '../domain/phone.ts';
import { isSandboxNumber, randomSandboxNumber } from '../domain/sandbox-numbers.ts';
import { findAccount } from '../store/repos/accounts.ts';
import { findPhoneNumber, insertPhoneNumber } from '../store/repos/phone-numbers.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';
import { findCarrierConnection } from '../store/repos/carrier-connections.ts';
import { accountScoped } from '../store/scope.ts';

/** A number provisioned on an account. */
export interface ProvisionedNumber {
  id: string;
  accountId: string;
  mode: Mode;
  phone: string;
  /** The live connection its texts go through; null: the account's first. */
  carrierId: string | null;
  /** The SIP trunk its calls go through; null: no live calls. */
  voiceCarrierId: string | null;
}

/**
 * Provisions `phone` on an account in one mode. Test mode takes only numbers in
 * the fictional sandbox range; a number belongs to one account per mode.
 */
export async function addNumber(
  tx: WriteTx,
  input: {
    accountId: string;
    mode: Mode;
    phone: string;
    carrierId?: string | undefined;
    voiceCarrierId?: string | undefined;
  },
  deps: CommandDeps,
): Promise<ProvisionedNumber> {
  if (!isE164(input.phone)) {
    throw validationError('phone', 'phone must be an E.164 number, such as +14155550100.');
  }
  if (input.mode === 'test' && !isSandboxNumber(input.phone)) {
    throw validationError('phone', 'test-mode numbers must be in the range +1NPA5550100–0199.');
  }
  if (!(await findAccount(tx.db, input.accountId))) {
    throw new ApiError('not_found', `No such account: '${input.accountId}'.`);
  }
  const carrierId = input.carrierId ?? null;
  if (carrierId !== null) {
    if (input.mode !== 'live') {
      throw validationError('carrier', 'Only live numbers go through a carrier connection.');
    }
    const connection = await findCarrierConnection(
      accountScoped(tx.db, input.accountId),
      carrierId,
    );
    // A SIP trunk carries calls only.
    if (!connection || connection.type === 'sip') {
      throw validationError('carrier', `No carrier connection '${carrierId}' on this account.`);
    }
  }
  const voiceCarrierId = input.voiceCarrierId ?? null;
  if (voiceCarrierId !== null) {
    if (input.mode !== 'live') {
      throw validationError('voice_carrier', 'Only live numbers go through a SIP trunk.');
    }
    const scope = accountScoped(tx.db, input.accountId);
    const trunk = await findCarrierConnection(scope, voiceCarrierId);
    if (trunk?.type !== 'sip') {
      throw validationError('voice_carrier', `No SIP trunk '${voiceCarrierId}' on this account.`);
    }
  }
  if (await findPhoneNumber(tx.db, input.mode, input.phone)) {
    throw validationError('phone', `${input.phone} is already provisioned in ${input.mode} mode.`);
  }
  const now = deps.clock.now();
  const row = {
    id: newId('pn', now),
    account_id: input.accountId,
    mode: input.mode,
    phone: input.phone,
    created_at: now,
    carrier_id: carrierId,
    voice_carrier_id: voiceCarrierId,
  };
  await insertPhoneNumber(tx.db, row);
  return {
    id: row.id,
    accountId: row.account_id,
    mode: row.mode,
    phone: row.phone,
    carrierId,
    voiceCarrierId,
  };
}

/** Picks a free sandbox number and provisions it in test mode. */
export async function provisionSandboxNumber(
  tx: WriteTx,
  accountId: string,
  deps: CommandDeps,
): Promise<string> {
  // 22 area codes x 100 lines: a free one is found in a few tries until thousands are taken.
  for (let attempt = 0; attempt < 200; attempt++) {
    const phone = randomSandboxNumber();
    if (await findPhoneNumber(tx.db, 'test', phone)) continue;
    await addNumber(tx, { accountId, mode: 'test', phone }, deps);
    return phone;
  }
  throw new ApiError('service_unavailable', 'No free sandbox numbers are left.');
}
