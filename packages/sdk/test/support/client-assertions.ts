// Assertions and data the client suites share.

import assert from 'node:assert/strict';
import { SwitchboardError } from '../../src/index.ts';

/** A UTC ISO 8601 timestamp with milliseconds, as the API writes them. */
export const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Distinct E.164 numbers outside the sandbox and magic ranges. */
export function phoneNumbers(area: string): () => string {
  let next = 0;
  return () => `+1${area}${2_000_000 + next++}`;
}

/** Asserts that `promise` rejects with an instance of `Class` of `status` and `type`. */
export async function rejectsWith<E extends SwitchboardError>(
  promise: Promise<unknown>,
  Class: abstract new (...args: never[]) => E,
  status: number,
  type: string,
): Promise<E> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof Class, `expected ${Class.name}, got ${String(caught)}`);
  const error = caught as E;
  assert.ok(error instanceof SwitchboardError);
  assert.equal(error.status, status);
  assert.equal(error.type, type);
  assert.match(error.requestId ?? '', /.+/, 'the request-id header is kept');
  assert.equal(typeof error.message, 'string');
  return error;
}
