// What a SIP trunk (a carrier connection of type `sip`) is configured with, checked before
// anything is stored (docs/behaviour.md#voice). The host is where calls go and the address
// inbound INVITEs are accepted from; the digest credentials, when given, are sealed apart.
import { validationError } from './errors.ts';

export type SipTransport = 'udp' | 'tcp' | 'tls';

/** A trunk's settings that may be shown (never its credentials). */
export interface SipTrunkSettings {
  host: string;
  port: number;
  transport: SipTransport;
  /** Whether digest credentials are kept (sealed) for it. */
  authenticated: boolean;
}

/** The digest credentials, kept sealed; empty strings when the trunk trusts addresses alone. */
export interface SipTrunkSecret {
  username: string;
  password: string;
}

export interface SipTrunkInput {
  host?: unknown;
  port?: unknown;
  transport?: unknown;
  username?: unknown;
  password?: unknown;
}

const HOST = /^[A-Za-z0-9.:[\]-]{1,253}$/;
// RFC 3261 user and quoted-string characters, printable ASCII: they travel in SIP headers.
const CREDENTIAL = /^[\x21-\x7e]{1,128}$/;

/** The port unless given: SIP's, or SIP over TLS's (RFC 3261 19.1.2). */
function port(value: unknown, transport: SipTransport): number {
  if (value === undefined || value === null || value === '') {
    return transport === 'tls' ? 5061 : 5060;
  }
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 65535) {
    throw validationError('port', 'port must be a whole number from 1 to 65535.');
  }
  return n;
}

function credential(value: unknown, param: string): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'string' || !CREDENTIAL.test(value) || /["\\]/.test(value)) {
    throw validationError(
      param,
      `${param} must be 1 to 128 printable ASCII characters, no quotes.`,
    );
  }
  return value;
}

/** Checks a trunk's settings; the shown part and the sealed part. */
export function parseSipTrunkSettings(input: SipTrunkInput): {
  settings: SipTrunkSettings;
  secret: SipTrunkSecret;
} {
  if (typeof input.host !== 'string' || input.host === '') {
    throw validationError('host', 'host is required.');
  }
  if (!HOST.test(input.host)) {
    throw validationError('host', 'host must be a host name or an IP address.');
  }
  const transport = input.transport ?? 'udp';
  if (transport !== 'udp' && transport !== 'tcp' && transport !== 'tls') {
    throw validationError('transport', 'transport must be one of udp, tcp, tls.');
  }
  const username = credential(input.username, 'username');
  const password = credential(input.password, 'password');
  if ((username === '') !== (password === '')) {
    const param = username === '' ? 'username' : 'password';
    throw validationError(param, 'username and password go together.');
  }
  return {
    settings: {
      host: input.host,
      port: port(input.port, transport),
      transport,
      authenticated: username !== '',
    },
    secret: { username, password },
  };
}
