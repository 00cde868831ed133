import { isE164 } from './phone.ts';

/** The actions a deep link can carry (spec 4.6); a link with any other action is dropped. */
export const DEEP_LINK_ACTIONS = ['call', 'sms'] as const;

/** `call` or `sms`. */
export type DeepLinkAction = (typeof DEEP_LINK_ACTIONS)[number];

/** The URL scheme the softphone registers unless the deployment configures another. */
export const DEFAULT_DEEP_LINK_SCHEME = 'switchboard';

/** Longest draft a link carries, in code points; longer text is cut rather than refused. */
export const DEEP_LINK_BODY_MAX = 1000;

/** A text draft for the composer. Links never send: the user still presses send. */
export interface SmsDeepLink {
  action: 'sms';
  to: string;
  /** The line to send from; absent means the user's default line. */
  from?: string;
  /** Editable draft text, at most {@link DEEP_LINK_BODY_MAX} code points. */
  body?: string;
}

/** A call to place. `autoDial` false means the app asks before dialling. */
export interface CallDeepLink {
  action: 'call';
  to: string;
  autoDial: boolean;
}

/** What a deep link means once parsed; branch on `action`. */
export type DeepLink = SmsDeepLink | CallDeepLink;

/** What {@link buildDeepLink} takes: a {@link DeepLink} whose `autoDial` may be left out (prompt). */
export type DeepLinkInput = SmsDeepLink | (Omit<CallDeepLink, 'autoDial'> & { autoDial?: boolean });

/** Where links point: the app's own scheme, or the web softphone. */
export interface DeepLinkOptions {
  /** The app's URL scheme; parsing also accepts its `web+<scheme>:` form. Default `switchboard`. */
  scheme?: string;
  /**
   * Build the web form `<webOrigin>/app/link?action=…` instead of `<scheme>://…`: it opens in any
   * browser, which suits e-mail. Ignored by {@link parseDeepLink}, which takes links on any host.
   */
  webOrigin?: string;
}

// Schemes whose URLs the WHATWG parser treats specially (host required, path normalised).
const SPECIAL_SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'file']);
const WEB_LINK_PATHS = new Set(['/app/link', '/app/link/']);

/**
 * The link for a call or a text draft, with `+` written as `%2B` and the body percent-encoded
 * and cut to {@link DEEP_LINK_BODY_MAX} code points. Throws a `TypeError` for a number that is
 * not E.164 or an unknown action, since the app would drop such a link silently.
 */
export function buildDeepLink(input: DeepLinkInput, options: DeepLinkOptions = {}): string {
  const action: string = input.action;
  if (!isE164(input.to)) throw new TypeError(`to must be an E.164 number, got ${show(input.to)}`);
  const params: [string, string][] = [['to', input.to]];
  if (input.action === 'sms') {
    if (input.from !== undefined) {
      if (!isE164(input.from)) {
        throw new TypeError(`from must be an E.164 number, got ${show(input.from)}`);
      }
      params.push(['from', input.from]);
    }
    // Lone surrogates cannot be percent-encoded as UTF-8; U+FFFD is what any encoder would send.
    const body = truncateCodePoints((input.body ?? '').toWellFormed(), DEEP_LINK_BODY_MAX);
    if (body !== '') params.push(['body', body]);
  } else if (input.action === 'call') {
    // Absent `ad` already means "ask first", so only the riskier choice is spelled out.
    if (input.autoDial === true) params.push(['ad', '1']);
  } else {
    throw new TypeError(
      `action must be one of ${DEEP_LINK_ACTIONS.join(', ')}, got ${show(action)}`,
    );
  }
  const query = params.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&');
  if (options.webOrigin !== undefined) {
    return `${webOrigin(options.webOrigin)}/app/link?action=${action}&${query}`;
  }
  return `${checkScheme(options.scheme ?? DEFAULT_DEEP_LINK_SCHEME)}://${action}?${query}`;
}

/**
 * What a deep link asks for, or null for a link the app must drop silently: another scheme, an
 * unknown action, or a missing or malformed `to`. Accepts `<scheme>://sms?…`, `<scheme>:sms?…`,
 * `web+<scheme>:…`, and `http(s)://HOST/app/link?action=…` or `…/app/link?uri=<encoded link>`
 * (the URL a browser opens for a registered `web+` protocol handler).
 *
 * Rules beyond the spec's table: `to` and `from` are not form-decoded, so a literal `+` is the
 * `+` of the number rather than a space (a number never holds a space); an invalid `from` is
 * dropped and the link kept; `ad` other than exactly `1` prompts; an empty `body` is no body.
 */
export function parseDeepLink(
  url: string | URL,
  options: Pick<DeepLinkOptions, 'scheme'> = {},
): DeepLink | null {
  const scheme = checkScheme(options.scheme ?? DEFAULT_DEEP_LINK_SCHEME);
  const parsed = toUrl(url);
  if (parsed === null) return null;
  if (parsed.protocol === 'https:' || parsed.protocol === 'http:') {
    return parseWebLink(parsed, scheme);
  }
  return parseAppLink(parsed, scheme);
}

function parseAppLink(url: URL, scheme: string): DeepLink | null {
  const protocol = url.protocol.slice(0, -1);
  if (protocol !== scheme && protocol !== `web+${scheme}`) return null;
  if (url.username !== '' || url.password !== '') return null;
  // `scheme://sms?…` carries the action as the host; `scheme:sms?…` (the form browsers hand a
  // `web+` protocol handler) carries it as the path.
  if (url.host === '') return fromQuery(url.pathname, readQuery(url.search));
  if (url.pathname !== '' && url.pathname !== '/') return null;
  return fromQuery(url.host, readQuery(url.search));
}

function parseWebLink(url: URL, scheme: string): DeepLink | null {
  if (!WEB_LINK_PATHS.has(url.pathname)) return null;
  const query = readQuery(url.search);
  const action = query.get('action');
  if (action !== undefined) return fromQuery(decodeText(action), query);
  const nested = query.get('uri');
  if (nested === undefined) return null;
  // Only the app forms may be nested: a web link inside a web link is never legitimate.
  const inner = toUrl(decodeText(nested));
  return inner === null ? null : parseAppLink(inner, scheme);
}

function fromQuery(rawAction: string, query: Map<string, string>): DeepLink | null {
  const action = rawAction.toLowerCase();
  const to = decodePhone(query.get('to'));
  if (to === undefined) return null;
  if (action === 'call') {
    // `from` and `body` mean nothing on a call; `ad` must be exactly 1 to skip the prompt.
    const ad = query.get('ad');
    return { action, to, autoDial: ad !== undefined && decodeText(ad) === '1' };
  }
  if (action !== 'sms') return null;
  const link: SmsDeepLink = { action, to };
  const from = decodePhone(query.get('from'));
  if (from !== undefined) link.from = from;
  const rawBody = query.get('body');
  const body = rawBody === undefined ? '' : decodeText(rawBody);
  if (body !== '') link.body = truncateCodePoints(body, DEEP_LINK_BODY_MAX);
  return link;
}

/** First raw (still percent-encoded) value of each parameter, keyed by decoded name. */
function readQuery(search: string): Map<string, string> {
  const query = new Map<string, string>();
  for (const pair of search.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodeText(eq === -1 ? pair : pair.slice(0, eq));
    if (!query.has(key)) query.set(key, eq === -1 ? '' : pair.slice(eq + 1));
  }
  return query;
}

// Form decoding (`+` is a space), tolerant of stray `%` the way browsers are.
function decodeText(raw: string): string {
  return new URLSearchParams(`v=${raw}`).get('v') ?? '';
}

// Percent-decoding without the form rule: a hand-written `to=+1415…` keeps its plus.
function decodePhone(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  return isE164(value) ? value : undefined;
}

/** The first `max` code points of `text`; a surrogate pair counts as one and is never split. */
function truncateCodePoints(text: string, max: number): string {
  // Fewer UTF-16 units than the limit means fewer code points too: nothing to cut.
  if (text.length <= max) return text;
  let index = 0;
  for (let count = 0; count < max && index < text.length; count++) {
    index += (text.codePointAt(index) ?? 0) > 0xffff ? 2 : 1;
  }
  return text.slice(0, index);
}

function toUrl(url: string | URL): URL | null {
  if (url instanceof URL) return url;
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

function checkScheme(scheme: string): string {
  const lower = scheme.toLowerCase();
  if (!/^[a-z][a-z0-9+.-]*$/.test(lower) || SPECIAL_SCHEMES.has(lower)) {
    throw new TypeError(
      `scheme must be an app URL scheme such as switchboard, got ${show(scheme)}`,
    );
  }
  return lower;
}

function webOrigin(origin: string): string {
  const url = toUrl(origin);
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new TypeError(`webOrigin must be an http(s) origin, got ${show(origin)}`);
  }
  return url.origin;
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}
