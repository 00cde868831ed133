import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import type { AttemptError } from '../domain/retry-schedule.ts';
import { isSsrfBlocked } from './ssrf-guard.ts';
import { requestOn } from './undici-parts.ts';

/** Longest response-body excerpt kept in the delivery log. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** What one POST to an endpoint came to. */
export interface PostResult {
  status?: number;
  retryAfter?: string | string[];
  error?: AttemptError;
  errorMessage?: string;
  excerpt: string | null;
  durationMs: number;
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

function classifyError(error: unknown): AttemptError {
  if (isSsrfBlocked(error)) return 'ssrf';
  const e = error as { code?: string; name?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  if (TIMEOUT_CODES.has(code) || e.name === 'TimeoutError' || e.name === 'AbortError')
    return 'timeout';
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
    return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL'))
    return 'tls';
  return 'other';
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a character. */
function utf8Prefix(text: string, maxBytes: number): string {
  // Every UTF-16 code unit is at most 3 bytes of UTF-8: most excerpts are measured by their length.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  // StringDecoder holds back an incomplete last character instead of turning it into U+FFFD.
  return new StringDecoder('utf8').write(bytes.subarray(0, maxBytes));
}

/**
 * Reads at most RESPONSE_EXCERPT_BYTES of a response body. Listeners, not an async
 * iterator: the iterator's promise per chunk and its stream bookkeeping cost more
 * than the read itself, once per delivery.
 */
function readExcerpt(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // `close` without `end` or `error` (a stream destroyed elsewhere) ends the read as well.
    const finish = () => {
      body.off('data', onData).off('end', finish).off('close', finish).off('error', reject);
      resolve(decodeExcerpt(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_EXCERPT_BYTES) {
        finish();
        // A huge answer is never read whole: the rest is dropped with the connection's stream,
        // whose destruction undici reports as an error nobody needs.
        body.on('error', ignore).destroy();
      }
    };
    body.on('data', onData).on('end', finish).on('close', finish).on('error', reject);
  });
}

function ignore(): void {}

function decodeExcerpt(chunks: Buffer[], size: number): string {
  const head = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  // Only a body cut at the bound can end inside a character: StringDecoder holds such a
  // partial character back instead of turning it into U+FFFD. A whole body decodes as it is.
  const decoded =
    size < RESPONSE_EXCERPT_BYTES
      ? head.toString('utf8')
      : new StringDecoder('utf8').write(head.subarray(0, RESPONSE_EXCERPT_BYTES));
  // PostgreSQL text cannot hold NUL: left in, the attempt could never be logged and the
  // delivery would be sent again after every lease. Invalid bytes and the replaced NULs
  // decode to the 3-byte U+FFFD, so the text is cut to the byte bound once more.
  return utf8Prefix(decoded.replaceAll('\u0000', '\uFFFD'), RESPONSE_EXCERPT_BYTES);
}

/** One signed delivery to POST: what `postWebhook` takes besides the dispatcher. */
export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * Makes the HTTP part of an attempt, never throwing: `postWebhook` on a dispatcher,
 * or the same done by another thread (the HTTP thread of `serve`, threads/).
 */
export type WebhookPoster = (post: WebhookPost) => Promise<PostResult>;

/** A poster that POSTs through `dispatcher` in this thread. */
export function posterOn(dispatcher: Dispatcher): WebhookPoster {
  return (post) => postWebhook({ ...post, dispatcher });
}

/**
 * POSTs one signed payload and reports what happened, never throwing.
 * Redirects are not followed (undici's `request` never does): a signed body
 * goes only to the URL the customer registered.
 */
export async function postWebhook(options: {
  url: string;
  body: string;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  timeoutMs: number;
}): Promise<PostResult> {
  const started = performance.now();
  // The bound on the whole attempt, connecting to the last byte read: undici's own timeouts
  // each bound one wait, and a body dripping a byte at a time would pass them all. Not
  // AbortSignal.timeout: its timer cannot be cleared, so every attempt's signal and timer
  // stayed alive for the whole timeout (20 000 of them in a burst), and it cost 4× as much.
  const aborter = new AbortController();
  const timer = setTimeout(
    () => aborter.abort(new DOMException('The attempt timed out.', 'TimeoutError')),
    options.timeoutMs,
  );
  // Like AbortSignal.timeout's: a pending attempt alone does not keep the process running.
  timer.unref();
  try {
    // undici's `request` on the dispatcher, with the URL split as its exported `request`
    // splits it.
    const url = new URL(options.url);
    const response = await requestOn(options.dispatcher, {
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      body: options.body,
      headers: options.headers,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      signal: aborter.signal,
    });
    const excerpt = await readExcerpt(response.body).catch(() => '');
    const retryAfter = response.headers['retry-after'];
    return {
      status: response.statusCode,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
      excerpt,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    return {
      error: classifyError(error),
      errorMessage:
        error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : String(error),
      excerpt: null,
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    clearTimeout(timer);
  }
}
