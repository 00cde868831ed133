// What a live carrier connection is configured with, checked before anything is stored
// (docs/behaviour.md#carrier-connections). SMPP 3.4 bounds its strings as C-octet fields
// (5.2.1: system_id 16, password 9, system_type 13 octets with the NUL), so longer values
// could never bind and are refused here, where the operator sees why.
import { validationError } from './errors.ts';

/** The kinds of connection. */
export const CARRIER_TYPES = ['smpp', 'twilio', 'telnyx', 'sip'] as const;
/** The kinds that speak HTTP: no bind to hold, and they carry media. */
export const HTTP_CARRIER_TYPES: readonly CarrierType[] = ['twilio', 'telnyx'];
export type CarrierType = (typeof CARRIER_TYPES)[number];

/** How long messages leave: concatenated parts with a UDH, or one `message_payload`. */
export type LongMessages = 'udh' | 'payload';
/** How the SMSC writes message ids in receipts, so they match its `submit_sm_resp`. */
export type ReceiptIds = 'dec' | 'hex';
/** One transceiver bind, or a transmitter and a receiver. */
export type BindMode = 'transceiver' | 'pair';

/** An SMPP connection's settings that may be shown (never the password). */
export interface SmppSettings {
  host: string;
  port: number;
  systemId: string;
  systemType: string;
  tls: boolean;
  /** Requests awaiting a response at most. */
  window: number;
  /** Submissions per second at most; 0: no cap. */
  throughput: number;
  longMessages: LongMessages;
  receiptIds: ReceiptIds;
  bindMode: BindMode;
}

/** What a connection is given to sign in with, kept sealed. */
export interface SmppSecret {
  password: string;
}

/** The defaults of what the operator may leave out. */
export const SMPP_DEFAULTS = {
  port: 2775,
  systemType: '',
  tls: false,
  window: 10,
  throughput: 0,
  longMessages: 'udh',
  receiptIds: 'dec',
  bindMode: 'transceiver',
} as const satisfies Partial<SmppSettings>;

/** The settings as given (the CLI's flags, the dashboard's form). */
export interface SmppInput {
  host?: unknown;
  port?: unknown;
  systemId?: unknown;
  password?: unknown;
  systemType?: unknown;
  tls?: unknown;
  window?: unknown;
  throughput?: unknown;
  longMessages?: unknown;
  receiptIds?: unknown;
  bindMode?: unknown;
}

const HOST = /^[A-Za-z0-9.:[\]-]{1,253}$/;

function text(value: unknown, param: string, max: number, required: boolean): string {
  if (value === undefined || value === null || value === '') {
    if (required) throw validationError(param, `${param} is required.`);
    return '';
  }
  if (typeof value !== 'string') throw validationError(param, `${param} must be a string.`);
  // Printable ASCII: the SMSC compares these octet by octet.
  if (!/^[\x20-\x7e]*$/.test(value)) {
    throw validationError(param, `${param} must be printable ASCII.`);
  }
  if (value.length > max) {
    throw validationError(param, `${param} must be at most ${max} characters (SMPP 3.4).`);
  }
  return value;
}

function integer(value: unknown, param: string, min: number, max: number, fallback: number) {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw validationError(param, `${param} must be a whole number from ${min} to ${max}.`);
  }
  return n;
}

function oneOf<T extends string>(
  value: unknown,
  param: string,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw validationError(param, `${param} must be one of ${allowed.join(', ')}.`);
  }
  return value as T;
}

/** Checks an SMPP connection's settings; the shown part and the sealed part. */
export function parseSmppSettings(input: SmppInput): {
  settings: SmppSettings;
  secret: SmppSecret;
} {
  const host = text(input.host, 'host', 253, true);
  if (!HOST.test(host)) throw validationError('host', 'host must be a host name or an IP address.');
  const tls = input.tls ?? SMPP_DEFAULTS.tls;
  if (typeof tls !== 'boolean') throw validationError('tls', 'tls must be true or false.');
  return {
    settings: {
      host,
      port: integer(input.port, 'port', 1, 65535, SMPP_DEFAULTS.port),
      systemId: text(input.systemId, 'systemId', 15, true),
      systemType: text(input.systemType, 'systemType', 12, false),
      tls,
      window: integer(input.window, 'window', 1, 1000, SMPP_DEFAULTS.window),
      throughput: integer(input.throughput, 'throughput', 0, 100_000, SMPP_DEFAULTS.throughput),
      longMessages: oneOf(input.longMessages, 'longMessages', ['udh', 'payload'], 'udh'),
      receiptIds: oneOf(input.receiptIds, 'receiptIds', ['dec', 'hex'], 'dec'),
      bindMode: oneOf(input.bindMode, 'bindMode', ['transceiver', 'pair'], 'transceiver'),
    },
    secret: { password: text(input.password, 'password', 8, true) },
  };
}
