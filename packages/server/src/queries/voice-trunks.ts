import type { Kysely } from 'kysely';
import type { SipTrunkSecret, SipTrunkSettings } from '../domain/sip-trunk-settings.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { DB } from '../store/schema.ts';
import { ownedByAccount } from '../store/scope.ts';

/** A live number and the SIP trunk its calls go through, credentials opened. */
export interface TrunkedNumber {
  accountId: string;
  phone: string;
  trunkId: string;
  trunk: SipTrunkSettings;
  secret: SipTrunkSecret;
}

type Row = {
  account_id: string;
  phone: string;
  id: string;
  settings_json: string;
  secret_sealed: string;
};

function trunked(row: Row, secrets: SecretBox): TrunkedNumber {
  return {
    accountId: row.account_id,
    phone: row.phone,
    trunkId: row.id,
    trunk: JSON.parse(row.settings_json) as SipTrunkSettings,
    secret: JSON.parse(secrets.open(row.secret_sealed)) as SipTrunkSecret,
  };
}

/** Live numbers with a trunk that is neither paused nor removed. */
function withTrunks(db: Kysely<DB>) {
  return db
    .selectFrom('phone_numbers as pn')
    .innerJoin('carrier_connections as cc', 'cc.id', 'pn.voice_carrier_id')
    .select(['pn.account_id', 'pn.phone', 'cc.id', 'cc.settings_json', 'cc.secret_sealed'])
    .where('pn.mode', '=', 'live')
    .where('cc.type', '=', 'sip')
    .where('cc.deleted_at', 'is', null)
    .where('cc.paused', '=', 0);
}

/**
 * The number an account's live softphone calls from, and its trunk: `from` when it is one of
 * the account's trunked numbers, else the account's first (oldest) trunked number.
 */
export async function outboundTrunk(
  db: Kysely<DB>,
  accountId: string,
  from: string,
  secrets: SecretBox,
): Promise<TrunkedNumber | undefined> {
  const rows = await withTrunks(db)
    .where(ownedByAccount(accountId, 'pn'))
    .orderBy('pn.id')
    .execute();
  const row = rows.find((r) => r.phone === from) ?? rows[0];
  return row ? trunked(row, secrets) : undefined;
}

/** The live number `to` and its trunk, whichever account holds it: routing an inbound call. */
export async function inboundTrunk(
  db: Kysely<DB>,
  to: string,
  secrets: SecretBox,
): Promise<TrunkedNumber | undefined> {
  const row = await withTrunks(db).where('pn.phone', '=', to).executeTakeFirst();
  return row ? trunked(row, secrets) : undefined;
}
