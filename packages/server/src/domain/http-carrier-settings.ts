// What a Twilio or Telnyx connection is configured with (docs/behaviour.md#carrier-connections),
// checked before anything is stored. Credentials are the sealed part; ids and the API's base
// address may be shown. `apiBase` exists for regional endpoints and for tests.
import { validationError } from './errors.ts';

/** A Twilio connection's settings that may be shown (never the auth token). */
export interface TwilioSettings {
  accountSid: string;
  /** Sends leave through this Messaging Service instead of `From` when set. */
  messagingServiceSid: string | null;
  apiBase: string;
  /** Requests to the API in flight at most. */
  window: number;
}

export interface TwilioSecret {
  authToken: string;
}

/** A Telnyx connection's settings that may be shown (never the API key). */
export interface TelnyxSettings {
  /** The account's Ed25519 public key (base64) that signs its webhooks. */
  publicKey: string;
  messagingProfileId: string | null;
  apiBase: string;
  window: number;
}

export interface TelnyxSecret {
  apiKey: string;
}

export interface HttpCarrierInput {
  accountSid?: unknown;
  authToken?: unknown;
  messagingServiceSid?: unknown;
  apiKey?: unknown;
  publicKey?: unknown;
  messagingProfileId?: unknown;
  apiBase?: unknown;
}

export const TWILIO_API_BASE = 'https://api.twilio.com';
export const TELNYX_API_BASE = 'https://api.telnyx.com';
/** Concurrent API requests per connection. */
const HTTP_WINDOW = 10;

function token(value: unknown, param: string, pattern: RegExp, required: boolean): string | null {
  if (value === undefined || value === null || value === '') {
    if (required) throw validationError(param, `${param} is required.`);
    return null;
  }
  if (typeof value !== 'string' || value.length > 256 || !pattern.test(value)) {
    throw validationError(param, `${param} is not a valid value.`);
  }
  return value;
}

function apiBase(value: unknown, fallback: string): string {
  if (value === undefined || value === null || value === '') return fallback;
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash) {
    throw validationError('apiBase', 'apiBase must be an http(s) URL without a query.');
  }
  return url.href.replace(/\/+$/, '');
}

/** Checks a Twilio connection's settings; the shown part and the sealed part. */
export function parseTwilioSettings(input: HttpCarrierInput): {
  settings: TwilioSettings;
  secret: TwilioSecret;
} {
  return {
    settings: {
      accountSid: token(input.accountSid, 'accountSid', /^AC[0-9a-fA-F]{32}$/, true)!,
      messagingServiceSid: token(
        input.messagingServiceSid,
        'messagingServiceSid',
        /^MG[0-9a-fA-F]{32}$/,
        false,
      ),
      apiBase: apiBase(input.apiBase, TWILIO_API_BASE),
      window: HTTP_WINDOW,
    },
    secret: { authToken: token(input.authToken, 'authToken', /^[\x21-\x7e]{8,}$/, true)! },
  };
}

/** Checks a Telnyx connection's settings; the public key must be a 32-byte Ed25519 key. */
export function parseTelnyxSettings(input: HttpCarrierInput): {
  settings: TelnyxSettings;
  secret: TelnyxSecret;
} {
  const publicKey = token(input.publicKey, 'publicKey', /^[A-Za-z0-9+/]{43}=$/, true)!;
  if (Buffer.from(publicKey, 'base64').length !== 32) {
    throw validationError('publicKey', 'publicKey must be a base64 Ed25519 public key.');
  }
  return {
    settings: {
      publicKey,
      messagingProfileId: token(input.messagingProfileId, 'messagingProfileId', /^[\w-]+$/, false),
      apiBase: apiBase(input.apiBase, TELNYX_API_BASE),
      window: HTTP_WINDOW,
    },
    secret: { apiKey: token(input.apiKey, 'apiKey', /^[\x21-\x7e]{8,}$/, true)! },
  };
}

/** Where a connection's provider posts, below the public URL (http/routes/carrier-callbacks.ts). */
export function carrierCallbackPath(id: string, kind: 'status' | 'inbound'): string {
  return `/v1/carriers/${id}/${kind}`;
}
