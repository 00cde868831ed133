import assert from 'node:assert/strict';
import type { Clock } from '../../src/lib/clock.ts';
import type { ApiClient } from './http.ts';
import { waitFor, type WaitOptions } from './messaging.ts';

/** Every event type of the catalog (spec 6.1), spelled out so a renamed type fails a test. */
export const ALL_EVENT_TYPES = [
  'message.received',
  'message.delivered',
  'message.failed',
  'call.completed',
  'call.missed',
  'contact.created',
] as const;

/** `whsec_` and the base64 of exactly 32 bytes (44 characters with one `=`). */
export const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/**
 * The wall clock shifted by an offset the test moves forward: the worker and the
 * API run on real time, and a test jumps over a retry wait instead of sleeping
 * through it. Only forward, so nothing ever sees time go back.
 */
export class ShiftedClock implements Clock {
  #offset = 0;

  now(): number {
    return Date.now() + this.#offset;
  }

  /** Moves the clock forward so that `now()` is at least `at`. */
  advanceTo(at: number): void {
    const gap = at - this.now();
    if (gap > 0) this.#offset += gap;
  }

  /** Moves the clock forward by `ms`. */
  advanceBy(ms: number): void {
    if (ms > 0) this.#offset += ms;
  }
}

/** Creates an endpoint and fails the test unless the API answers 201. */
export async function createEndpoint(
  client: ApiClient,
  url: string,
  events: readonly string[] = ALL_EVENT_TYPES,
): Promise<{ id: string; secret: string; url: string; events: string[] }> {
  const res = await client.post('/v1/webhook_endpoints', { url, events });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** The whole delivery log of an endpoint (first page of 100), newest first. */
export async function deliveriesOf(client: ApiClient, endpointId: string): Promise<any[]> {
  const res = await client.get(`/v1/webhook_endpoints/${endpointId}/deliveries?limit=100`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** Polls the delivery log until one delivery satisfies `accept`, and returns it. */
export function waitForDelivery(
  client: ApiClient,
  endpointId: string,
  accept: (delivery: any) => boolean,
  what: string,
  options: WaitOptions = { timeoutMs: 10_000, intervalMs: 20 },
): Promise<any> {
  return waitFor(
    async () => (await deliveriesOf(client, endpointId)).find(accept),
    `${endpointId}: ${what}`,
    options,
  );
}
