// SSRF defence for webhook URLs. A customer chooses the URL, so without this the
// server could be made to POST into its own network or a cloud metadata service.
// The check runs twice: when an endpoint is created (a clear 422) and on every
// connection, where the address that was checked is the one connected to, so DNS
// rebinding between a check and the connect cannot slip through (guarded-dispatcher.ts).
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

/** What kind of network an address belongs to; only `public` is reachable without `allowPrivate`. */
export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'multicast'
  | 'unspecified'
  | 'reserved'
  | 'metadata';

function parseV4(ip: string): number {
  const [a = 0, b = 0, c = 0, d = 0] = ip.split('.').map(Number);
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

/** The 128-bit value of a textual IPv6 address already validated by `isIP`. */
function parseV6(ip: string): bigint {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const embedded = parseV4(text.slice(lastColon + 1));
    const high = (embedded >>> 16).toString(16);
    text = `${text.slice(0, lastColon + 1)}${high}:${(embedded & 0xffff).toString(16)}`;
  }
  const [headText = '', tailText] = text.split('::');
  const head = headText === '' ? [] : headText.split(':');
  const tail = tailText === undefined || tailText === '' ? [] : tailText.split(':');
  const zeros = tailText === undefined ? 0 : Math.max(0, 8 - head.length - tail.length);
  const groups = [...head, ...Array<string>(zeros).fill('0'), ...tail];
  if (groups.length !== 8) throw new TypeError(`not an IPv6 address: ${ip}`);
  return groups.reduce((value, group) => (value << 16n) | BigInt(`0x${group}`), 0n);
}

interface Range<T> {
  base: T;
  prefix: number;
  kind: AddressKind;
}

const v4 = (ip: string, prefix: number, kind: AddressKind) => ({ base: parseV4(ip), prefix, kind });
const v6 = (ip: string, prefix: number, kind: AddressKind) => ({ base: parseV6(ip), prefix, kind });

// Most specific first: the first matching range decides.
const V4_RANGES: readonly Range<number>[] = [
  v4('169.254.169.254', 32, 'metadata'), // AWS, GCP, Azure, Oracle, DigitalOcean
  v4('100.100.100.200', 32, 'metadata'), // Alibaba Cloud
  v4('0.0.0.0', 32, 'unspecified'),
  v4('0.0.0.0', 8, 'reserved'),
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'private'), // carrier-grade NAT, often a provider's internal network
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link_local'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'reserved'),
  v4('192.0.2.0', 24, 'reserved'),
  v4('192.88.99.0', 24, 'reserved'),
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'reserved'),
  v4('198.51.100.0', 24, 'reserved'),
  v4('203.0.113.0', 24, 'reserved'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved'), // includes 255.255.255.255
];

// Exact addresses that must win over the embedding rules below (:: and ::1 sit inside ::/96).
const V6_EXACT: readonly Range<bigint>[] = [
  v6('::', 128, 'unspecified'),
  v6('::1', 128, 'loopback'),
  v6('fd00:ec2::254', 128, 'metadata'), // AWS over IPv6
];

// Ranges that carry an IPv4 address: the embedded address decides, since that is where packets go.
// `shift` is where the 32 IPv4 bits sit, counted from the low end.
const V6_EMBEDDING: readonly { base: bigint; prefix: number; shift: bigint }[] = [
  { base: parseV6('::ffff:0:0'), prefix: 96, shift: 0n }, // IPv4-mapped
  { base: parseV6('::ffff:0:0:0'), prefix: 96, shift: 0n }, // IPv4-translated (RFC 2765)
  { base: parseV6('64:ff9b::'), prefix: 96, shift: 0n }, // NAT64
  { base: parseV6('2002::'), prefix: 16, shift: 80n }, // 6to4
  { base: parseV6('::'), prefix: 96, shift: 0n }, // IPv4-compatible (deprecated)
];

const V6_RANGES: readonly Range<bigint>[] = [
  v6('64:ff9b:1::', 48, 'private'), // local-use NAT64
  v6('100::', 64, 'reserved'), // discard-only
  v6('2001::', 32, 'reserved'), // Teredo: the real destination is hidden in the address
  v6('2001:db8::', 32, 'reserved'),
  v6('2001::', 23, 'reserved'), // IETF protocol assignments
  v6('3fff::', 20, 'reserved'), // documentation (RFC 9637)
  v6('fc00::', 7, 'private'),
  v6('fe80::', 10, 'link_local'),
  v6('fec0::', 10, 'private'), // deprecated site-local
  v6('ff00::', 8, 'multicast'),
];

// Only 2000::/3 is allocated for global unicast; anything else cannot be a real endpoint.
const GLOBAL_UNICAST = parseV6('2000::');

function inV4(ip: number, { base, prefix }: { base: number; prefix: number }): boolean {
  const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  return (ip & mask) >>> 0 === (base & mask) >>> 0;
}

function inV6(ip: bigint, { base, prefix }: { base: bigint; prefix: number }): boolean {
  const shift = BigInt(128 - prefix);
  return ip >> shift === base >> shift;
}

function classifyV4(ip: number): AddressKind {
  return V4_RANGES.find((range) => inV4(ip, range))?.kind ?? 'public';
}

function classifyV6(ip: bigint): AddressKind {
  const exact = V6_EXACT.find((range) => inV6(ip, range));
  if (exact) return exact.kind;
  const embedding = V6_EMBEDDING.find((range) => inV6(ip, range));
  if (embedding) return classifyV4(Number((ip >> embedding.shift) & 0xffffffffn));
  const range = V6_RANGES.find((r) => inV6(ip, r));
  if (range) return range.kind;
  return inV6(ip, { base: GLOBAL_UNICAST, prefix: 3 }) ? 'public' : 'reserved';
}

/**
 * The kind of network an IP address (v4 or v6, optionally in brackets or with
 * a zone) belongs to. Throws a TypeError for anything that is not an IP address.
 */
export function classifyAddress(ip: string): AddressKind {
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return classifyV4(parseV4(bare));
  if (family === 6) return classifyV6(parseV6(bare));
  throw new TypeError(`not an IP address: ${ip}`);
}

/**
 * Whether webhooks may be sent to an address of this kind. `allowPrivate`
 * opens every network except cloud metadata, which no webhook legitimately needs.
 */
export function isAddressAllowed(kind: AddressKind, allowPrivate: boolean): boolean {
  return kind === 'public' || (allowPrivate && kind !== 'metadata');
}

/** The `code` of every error this guard raises, so the worker can log the attempt as `ssrf`. */
export const SSRF_BLOCKED = 'ERR_SSRF_BLOCKED';

/** A connection refused because the host is, or resolves to, an address that is not allowed. */
export class SsrfBlockedError extends Error {
  readonly code = SSRF_BLOCKED;
  readonly hostname: string;
  readonly address: string;
  readonly kind: AddressKind;

  constructor(hostname: string, address: string, kind: AddressKind) {
    super(`refusing to connect to ${hostname}: ${address} is a ${kind.replace('_', '-')} address`);
    this.name = 'SsrfBlockedError';
    this.hostname = hostname;
    this.address = address;
    this.kind = kind;
  }
}

/** Whether an error (or its cause, as undici sometimes wraps) came from this guard. */
export function isSsrfBlocked(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === SSRF_BLOCKED) return true;
  }
  return false;
}

/** Resolves a host name to every address it has; injectable so tests need no real DNS. */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

/** The system's resolver, every address of a name. */
export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true });

/** The first of `addresses` that is not allowed, as an error to refuse the connection with. */
export function firstBlocked(
  hostname: string,
  addresses: readonly LookupAddress[],
  allowPrivate: boolean,
): SsrfBlockedError | null {
  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    if (!isAddressAllowed(kind, allowPrivate)) return new SsrfBlockedError(hostname, address, kind);
  }
  return null;
}

/** Options of {@link checkWebhookUrl}. */
export interface UrlCheckOptions {
  /** `SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE`: permits `http://` and non-public addresses. */
  allowPrivate: boolean;
  resolve?: Resolver;
  /** How long name resolution may take before the URL is refused; default 5 s. */
  resolveTimeoutMs?: number;
}

/** The verdict on a webhook URL; `reason` is fit to show in a `422` message. */
export type UrlCheckResult = { ok: true } | { ok: false; reason: string };

/**
 * Checks a webhook URL when an endpoint is created: https only (http too with
 * `allowPrivate`), no credentials, and every address the host resolves to allowed.
 */
export async function checkWebhookUrl(
  url: string,
  { allowPrivate, resolve = systemResolver, resolveTimeoutMs = 5000 }: UrlCheckOptions,
): Promise<UrlCheckResult> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'url must be an absolute URL' };
  }
  // Kept as sent, and PostgreSQL's text cannot hold it (domain/text-rules.ts).
  if (url.includes('\u0000')) {
    return { ok: false, reason: 'url must not contain the NUL character (U+0000)' };
  }
  // The URL parser drops surrounding spaces and control characters (code points up to
  // U+0020), and the stored URL would keep them: refused, as a URL that is not one.
  if (url.charCodeAt(0) <= 0x20 || url.charCodeAt(url.length - 1) <= 0x20) {
    return { ok: false, reason: 'url must not begin or end with spaces' };
  }
  // It also drops tabs and line breaks anywhere in it.
  if (/[\t\n\r]/.test(url))
    return { ok: false, reason: 'url must not contain tabs or line breaks' };
  const schemeOk = parsed.protocol === 'https:' || (allowPrivate && parsed.protocol === 'http:');
  if (!schemeOk) return { ok: false, reason: 'url must use https://' };
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'url must not contain credentials' };
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: readonly LookupAddress[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await withTimeout(resolve(host), resolveTimeoutMs);
    } catch {
      return { ok: false, reason: `url host ${host} could not be resolved` };
    }
    if (addresses.length === 0) return { ok: false, reason: `url host ${host} has no address` };
  }
  const blocked = firstBlocked(host, addresses, allowPrivate);
  if (blocked) {
    const kind = blocked.kind.replace('_', '-');
    return {
      ok: false,
      reason: `url host ${host} resolves to a ${kind} address (${blocked.address})`,
    };
  }
  return { ok: true };
}

// getaddrinfo cannot be cancelled; the lookup is left to finish in the background.
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
