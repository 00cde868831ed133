// What a Twilio or Telnyx connection shares behind the live carrier: there is no bind, so it
// is ready as soon as it runs; the provider's 429 pauses its sends for the time the provider
// asks (the submissions wait without spending an attempt); receipts and inbound texts come
// by HTTP callbacks (http/routes/carrier-callbacks.ts), not through the adapter.
import type { Agent } from 'undici';
import { CarrierUnavailable, type Submission, type SubmitResult } from '../carrier.ts';
import type { AdapterState, ConnectionAdapter } from '../live/live-carrier.ts';

/** The provider asked to slow down (HTTP 429); `retryAfterMs` from its Retry-After. */
export class RateLimited extends Error {
  readonly retryAfterMs: number;
  constructor(retryAfterMs: number, message: string) {
    super(message);
    this.name = 'RateLimited';
    this.retryAfterMs = retryAfterMs;
  }
}

/** A pause of a second when the provider names none; a minute at most, whatever it names. */
const DEFAULT_PAUSE_MS = 1_000;
const MAX_PAUSE_MS = 60_000;
/** Time a provider has to answer one API request. */
const REQUEST_TIMEOUT_MS = 15_000;

/** Reads `Retry-After` (seconds or an HTTP date) as milliseconds from `now`. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return DEFAULT_PAUSE_MS;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms) || ms <= 0) return DEFAULT_PAUSE_MS;
  return Math.min(ms, MAX_PAUSE_MS);
}

/** One API answer: its status, headers and parsed JSON body (null when not JSON). */
export interface ApiAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** The client one connection's API requests go through. */
export interface ApiClient {
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    contentType: string,
  ): Promise<ApiAnswer>;
  close(): Promise<void>;
}

/**
 * undici is loaded with the first request, not with this module: the store thread, which
 * runs every carrier, loads it only when an HTTP connection sends (thread-modules.test.ts).
 */
const undici = () => import('undici');

export function apiClient(): ApiClient {
  let agent: Promise<Agent> | null = null;
  const agentOf = () =>
    (agent ??= undici().then(
      ({ Agent }) =>
        new Agent({
          headersTimeout: REQUEST_TIMEOUT_MS,
          bodyTimeout: REQUEST_TIMEOUT_MS,
          connections: 32,
        }),
    ));
  return {
    async post(url, headers, body, contentType) {
      const { request } = await undici();
      const answer = await request(url, {
        method: 'POST',
        dispatcher: await agentOf(),
        headers: { ...headers, 'content-type': contentType, accept: 'application/json' },
        body,
      });
      const text = await answer.body.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      return { status: answer.statusCode, headers: answer.headers, body: parsed };
    },
    close: async () => {
      if (agent) await (await agent).close();
    },
  };
}

/**
 * An adapter from a provider's `send`: it throws CarrierRejection for a refusal for good,
 * RateLimited for a 429, anything else for a fault worth retrying.
 */
export function httpAdapter(options: {
  id: string;
  now: () => number;
  send(submission: Submission): Promise<SubmitResult>;
  close(): Promise<void>;
}): ConnectionAdapter {
  let pausedUntil = 0;
  let inFlight = 0;
  let lastError: string | null = null;
  const listeners: (() => void)[] = [];
  const changed = () => listeners.forEach((l) => l());
  return {
    async start() {},
    async submit(submission) {
      if (options.now() < pausedUntil) {
        throw new CarrierUnavailable(`Carrier connection ${options.id} is rate limited.`);
      }
      inFlight++;
      try {
        const result = await options.send(submission);
        if (lastError !== null) {
          lastError = null;
          changed();
        }
        return result;
      } catch (error) {
        if (error instanceof RateLimited) {
          pausedUntil = Math.max(pausedUntil, options.now() + error.retryAfterMs);
          throw new CarrierUnavailable(error.message);
        }
        lastError = error instanceof Error ? error.message : String(error);
        changed();
        throw error;
      } finally {
        inFlight--;
      }
    },
    state(): AdapterState {
      return { status: 'bound', lastError, inFlight };
    },
    onStateChange(listener) {
      listeners.push(listener);
    },
    stop: () => options.close(),
  };
}
