import type { CarrierType, SmppSettings } from '../domain/carrier-settings.ts';
import {
  carrierCallbackPath,
  type TelnyxSettings,
  type TwilioSettings,
} from '../domain/http-carrier-settings.ts';
import type { SipTrunkSettings } from '../domain/sip-trunk-settings.ts';
import type { CarrierBindRow, CarrierConnectionRow } from '../store/repos/carrier-connections.ts';
import { isoTime } from './time.ts';

/** What the holder of a bind counts (carriers/live/live-carrier.ts). */
export interface CarrierStats {
  inFlight: number;
  sentLastMinute: number;
  receivedLastMinute: number;
}

/** What a connection of each type shows of its settings. */
export type CarrierSettingsView = Partial<SmppSettings> &
  Partial<TwilioSettings> &
  Partial<TelnyxSettings> &
  Partial<SipTrunkSettings>;

/** A connection as the CLI and the dashboard show it: its settings and live state, never its secret. */
export interface CarrierConnectionView extends CarrierSettingsView, CarrierStats {
  id: string;
  object: 'carrier_connection';
  type: CarrierType;
  /** Where the provider posts status callbacks and inbound texts (HTTP types only). */
  webhookUrls?: { status: string; inbound: string } | undefined;
  accountId: string;
  /** `connecting`, `bound`, `failed`, `paused`, or `stopped` (no instance holds it); a SIP trunk `checking`, `up` or `failed`. */
  status: string;
  lastError: string | null;
  paused: boolean;
  createdAt: string;
}

const NO_STATS: CarrierStats = { inFlight: 0, sentLastMinute: 0, receivedLastMinute: 0 };

/** A connection row and its bind's state (none yet: not bound by any instance). */
export function presentCarrierConnection(
  row: CarrierConnectionRow,
  bind: CarrierBindRow | null,
  now: number,
): CarrierConnectionView {
  // A lease that ran out is a bind nobody holds: its last words are stale.
  const held = bind !== null && bind.holder !== null && bind.lease_until > now;
  const first = row.type === 'sip' ? 'checking' : 'connecting';
  const status = row.paused ? 'paused' : held ? bind.status : bind ? 'stopped' : first;
  return {
    id: row.id,
    object: 'carrier_connection',
    type: row.type,
    accountId: row.account_id,
    ...(JSON.parse(row.settings_json) as CarrierSettingsView),
    status,
    lastError: bind?.last_error ?? null,
    paused: row.paused === 1,
    ...(held
      ? { ...NO_STATS, ...(JSON.parse(bind.stats_json) as Partial<CarrierStats>) }
      : NO_STATS),
    createdAt: isoTime(row.created_at),
  };
}

/**
 * The addresses an HTTP connection's provider posts to, built on `SWITCHBOARD_PUBLIC_URL`
 * (the address the provider reaches); none for SMPP or while that is not configured.
 */
export function withWebhookUrls(
  view: CarrierConnectionView,
  publicUrl: string | null,
): CarrierConnectionView {
  if (view.type === 'smpp' || publicUrl === null) return view;
  return {
    ...view,
    webhookUrls: {
      status: publicUrl + carrierCallbackPath(view.id, 'status'),
      inbound: publicUrl + carrierCallbackPath(view.id, 'inbound'),
    },
  };
}
