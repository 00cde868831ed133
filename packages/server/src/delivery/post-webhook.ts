import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import type { AttemptError } from '../domain/retry-schedule.ts';
import { isSsrfBlocked } from './ssrf-guard.ts';

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

/** The excerpt of what came of a body; `whole` when it came to its end. */
function decodeExcerpt(chunks: Buffer[], size: number, whole: boolean): string {
  const head = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  // A body cut short (at the bound, or by the attempt's end) can end inside a character:
  // StringDecoder holds such a partial character back instead of turning it into U+FFFD.
  // A whole body decodes as it is.
  const decoded =
    whole && size < RESPONSE_EXCERPT_BYTES
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
 * Redirects are not followed (undici's dispatchers never do): a signed body
 * goes only to the URL the customer registered.
 *
 * Through `dispatcher.dispatch` with a handler of its own rather than undici's
 * `request`, which wraps every response in a Readable stream and an async
 * resource: for a body read once, up to 1 KB, that machinery cost more than the
 * POST itself (CPU per POST to a local receiver 46–54 → 31–41 µs, three runs each).
 */
export function postWebhook(options: {
  url: string;
  /** A Web Push's encrypted payload is bytes (send-push.ts). */
  body: string | Uint8Array;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  timeoutMs: number;
}): Promise<PostResult> {
  const started = performance.now();
  return new Promise<PostResult>((resolve) => {
    let controller: Dispatcher.DispatchController | null = null;
    let status: number | undefined;
    let retryAfter: string | string[] | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;

    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    const fail = (error: unknown) =>
      finish({
        error: classifyError(error),
        errorMessage:
          error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : String(error),
        excerpt: null,
      });
    const answered = (whole: boolean) =>
      finish({
        status: status!,
        ...(retryAfter !== undefined ? { retryAfter } : {}),
        excerpt: decodeExcerpt(chunks, size, whole),
      });

    // The bound on the whole attempt, waiting for a connection to the last byte read:
    // undici's own timeouts each bound one wait, and a body dripping a byte at a time
    // would pass them all. A request not yet started (queued behind the pool's busy
    // connections, or still connecting) ends now and is aborted if it ever starts.
    const timedOut = () => new DOMException('The attempt timed out.', 'TimeoutError');
    const timer = setTimeout(() => {
      if (controller) controller.abort(timedOut());
      else fail(timedOut());
    }, options.timeoutMs);
    // A pending attempt alone does not keep the process running.
    timer.unref();

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(starting) {
        controller = starting;
        // The attempt ended (timed out) while the request waited for a connection.
        if (done) starting.abort(timedOut());
      },
      onResponseStart(_controller, statusCode, headers) {
        // A 1xx is not the answer; the final status follows it.
        if (statusCode < 200) return;
        status = statusCode;
        retryAfter = headers['retry-after'];
      },
      onResponseData(ongoing, chunk) {
        if (done) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_EXCERPT_BYTES) {
          answered(false);
          // A huge answer is never read whole: the rest goes with the connection.
          ongoing.abort(new Error('the response excerpt is complete'));
        }
      },
      onResponseEnd() {
        answered(true);
      },
      onResponseError(_controller, error) {
        // Cut off while its body came (the bound on the attempt, a dropped connection): the
        // endpoint has answered, and what came of the body is its excerpt.
        if (status !== undefined) answered(false);
        else fail(error);
      },
    };
    try {
      // undici splits the URL this way for `request` as well.
      const url = new URL(options.url);
      options.dispatcher.dispatch(
        {
          origin: url.origin,
          path: url.pathname + url.search,
          method: 'POST',
          body: options.body,
          headers: options.headers,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        },
        handler,
      );
    } catch (error) {
      fail(error);
    }
  });
}
