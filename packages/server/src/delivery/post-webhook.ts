import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { request } from 'undici';
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
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  // StringDecoder holds back an incomplete last character instead of turning it into U+FFFD.
  return new StringDecoder('utf8').write(bytes.subarray(0, maxBytes));
}

async function readExcerpt(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    // Leaving the loop early destroys the stream: a huge answer is never read whole.
    if (size >= RESPONSE_EXCERPT_BYTES) break;
  }
  const head = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES);
  // PostgreSQL text cannot hold NUL: left in, the attempt could never be logged and the
  // delivery would be sent again after every lease. Invalid bytes and the replaced NULs
  // decode to the 3-byte U+FFFD, so the text is cut to the byte bound once more.
  const text = new StringDecoder('utf8').write(head).replaceAll('\u0000', '\uFFFD');
  return utf8Prefix(text, RESPONSE_EXCERPT_BYTES);
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
  try {
    const response = await request(options.url, {
      method: 'POST',
      body: options.body,
      headers: options.headers,
      dispatcher: options.dispatcher,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      signal: AbortSignal.timeout(options.timeoutMs),
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
  }
}
