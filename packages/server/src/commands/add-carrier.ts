import { ApiError, validationError } from '../domain/errors.ts';
import {
  CARRIER_TYPES,
  parseSmppSettings,
  type CarrierType,
  type SmppInput,
} from '../domain/carrier-settings.ts';
import {
  parseTelnyxSettings,
  parseTwilioSettings,
  type HttpCarrierInput,
} from '../domain/http-carrier-settings.ts';
import { parseSipTrunkSettings, type SipTrunkInput } from '../domain/sip-trunk-settings.ts';
import { newId } from '../lib/ids.ts';
import {
  presentCarrierConnection,
  type CarrierConnectionView,
} from '../presenters/carrier-connection.ts';
import { findAccount } from '../store/repos/accounts.ts';
import {
  CARRIER_CHANGED,
  insertCarrierConnection,
  type CarrierConnectionRow,
} from '../store/repos/carrier-connections.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { CommandDeps } from './context.ts';

/** What a new connection is given: its type and that type's settings. */
export interface AddCarrierInput extends SmppInput, HttpCarrierInput, SipTrunkInput {
  type?: unknown;
}

/**
 * Adds a live carrier connection to an account (docs/behaviour.md#carrier-connections): an
 * SMSC, an HTTP provider, or a SIP trunk for calls. The settings are checked before anything
 * is stored; the credentials are sealed, and the answer never carries them. The live carrier
 * binds it once committed (CARRIER_CHANGED).
 */
export async function addCarrier(
  tx: WriteTx,
  accountId: string,
  input: AddCarrierInput,
  deps: CommandDeps & { seal(secret: string): string },
): Promise<CarrierConnectionView> {
  const type = input.type as CarrierType;
  if (!CARRIER_TYPES.includes(type)) {
    throw validationError('type', `type must be one of ${CARRIER_TYPES.join(', ')}.`);
  }
  const { settings, secret } =
    type === 'twilio'
      ? parseTwilioSettings(input)
      : type === 'telnyx'
        ? parseTelnyxSettings(input)
        : type === 'sip'
          ? parseSipTrunkSettings(input)
          : parseSmppSettings(input);
  if (!(await findAccount(tx.db, accountId))) {
    throw new ApiError('not_found', `No such account: '${accountId}'.`);
  }
  const now = deps.clock.now();
  const row: CarrierConnectionRow = {
    id: newId('car', now),
    account_id: accountId,
    type,
    settings_json: JSON.stringify(settings),
    secret_sealed: deps.seal(JSON.stringify(secret)),
    paused: 0,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await insertCarrierConnection(tx.db, row);
  tx.publish(CARRIER_CHANGED, { id: row.id });
  return presentCarrierConnection(row, null, now);
}
