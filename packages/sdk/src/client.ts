// The API client, shaped like stripe-node: one object per API key, resources as properties, every
// method resolving with the resource or rejecting with a typed error from errors.ts.

import { SDK_VERSION, Transport } from './http.ts';
import type { FetchLike } from './http.ts';
import { Contacts } from './resources/contacts.ts';
import { Messages } from './resources/messages.ts';
import { Sandbox } from './resources/sandbox.ts';
import { WebhookEndpoints } from './resources/webhook-endpoints.ts';

/** Where a self-hosted server listens by default (`switchboard serve`). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/v1';

/** Settings of a {@link Switchboard} client; every one has a default. */
export interface SwitchboardOptions {
  /** The API's base URL, ending in `/v1`. Default {@link DEFAULT_BASE_URL}. */
  baseUrl?: string;
  /** Per-attempt timeout in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Retries after the first attempt for 429, 5xx and lost connections. Default 2. */
  maxRetries?: number;
  /** A `fetch` to use instead of the global one (a proxy agent, a test double). */
  fetch?: FetchLike;
  /** Your application's name/version, put before the SDK's own in the User-Agent. */
  userAgent?: string;
  /** Backoff ceiling of the first retry in milliseconds, doubling per retry. Default 500. */
  retryBaseDelayMs?: number;
  /** Largest backoff ceiling in milliseconds. Default 8000. */
  retryMaxDelayMs?: number;
}

function nonNegative(name: string, value: number, integer: boolean): number {
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new RangeError(`${name} must be a non-negative ${integer ? 'integer' : 'number'}.`);
  }
  return value;
}

/**
 * A client for one API key. Keep it on a server: the key has full access to its account, and
 * test keys (`sk_test_…`) act only in the sandbox.
 */
export class Switchboard {
  /** Send messages and read their status. */
  readonly messages: Messages;
  /** Create and read contacts. */
  readonly contacts: Contacts;
  /** Manage webhook endpoints, their secrets and delivery logs. */
  readonly webhookEndpoints: WebhookEndpoints;
  /** Simulate inbound texts and calls (test keys only). */
  readonly sandbox: Sandbox;

  constructor(apiKey: string, options: SwitchboardOptions = {}) {
    if (typeof apiKey !== 'string' || apiKey.trim() === '') {
      throw new TypeError(
        'new Switchboard(apiKey): an API key (sk_test_… or sk_live_…) is required.',
      );
    }
    const fetchFn = options.fetch ?? globalThis.fetch;
    if (typeof fetchFn !== 'function') {
      throw new TypeError('No global fetch here; pass options.fetch.');
    }
    const timeoutMs = nonNegative('timeoutMs', options.timeoutMs ?? 30_000, false);
    if (timeoutMs === 0) throw new RangeError('timeoutMs must be greater than 0.');
    const agent = `switchboard-sdk/${SDK_VERSION}`;
    const http = new Transport({
      apiKey,
      baseUrl: (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
      timeoutMs,
      maxRetries: nonNegative('maxRetries', options.maxRetries ?? 2, true),
      retryBaseDelayMs: nonNegative('retryBaseDelayMs', options.retryBaseDelayMs ?? 500, false),
      retryMaxDelayMs: nonNegative('retryMaxDelayMs', options.retryMaxDelayMs ?? 8_000, false),
      fetch: fetchFn,
      userAgent: options.userAgent ? `${options.userAgent} ${agent}` : agent,
    });
    this.messages = new Messages(http);
    this.contacts = new Contacts(http);
    this.webhookEndpoints = new WebhookEndpoints(http);
    this.sandbox = new Sandbox(http);
  }
}
