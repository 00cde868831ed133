// What pg clients of this process send, recorded for the tests of the PostgreSQL write lane:
// each query is a round trip unless sent while another awaits its answer. Imported before any
// store opens (see below).
import pg from 'pg';
import { LISTENER_NAME } from '../../src/store/engine/postgres-signal-relay.ts';

/**
 * Records the queries pg clients of this process send while `recording` is set:
 * each is a round trip to the server. Installed before the store opens, since the
 * store's connections keep the `query` they were made with. A listener's own queries
 * (its look for other instances, once a second) are no lane's and are not recorded.
 */
export const sent: string[] = [];
let recording = false;
/** Queries sent and not yet answered while recording, and the most there were at once. */
let inFlight = 0;
let peakInFlight = 0;
/** Queries sent while no other was waiting for its answer: the waits a batch cost. */
let roundTrips = 0;
/** For each query of `sent` answered: how many had been sent when its answer came. */
export const sentWhenAnswered = new Map<number, number>();
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [text] = args;
  const result = (query as (...a: unknown[]) => unknown).apply(this, args);
  const name = (this as unknown as { connectionParameters: { application_name?: string } })
    .connectionParameters.application_name;
  if (recording && name !== LISTENER_NAME) {
    sent.push(typeof text === 'string' ? text : ((text as { text?: string }).text ?? '?'));
    if (result instanceof Promise) {
      // Sent with nothing awaited: the client waits for this one's answer.
      if (inFlight === 0) roundTrips++;
      peakInFlight = Math.max(peakInFlight, ++inFlight);
      const index = sent.length - 1;
      const answered = () => {
        inFlight--;
        sentWhenAnswered.set(index, sent.length);
      };
      result.then(answered, answered);
    }
  }
  return result;
} as typeof query;

/** The most queries that were sent and not yet answered at once while `fn` ran. */
export async function peakInFlightDuring(fn: () => Promise<unknown>): Promise<number> {
  inFlight = 0;
  peakInFlight = 0;
  await queriesDuring(fn);
  return peakInFlight;
}

/** The queries sent while `fn` ran, and how many round trips they took. */
export async function roundTripsDuring(fn: () => Promise<unknown>) {
  inFlight = 0;
  roundTrips = 0;
  const queries = await queriesDuring(fn);
  return { queries, roundTrips };
}

/** A batch's statements but its NOTIFYs, which go out together with its commit. */
export const statementsOf = (sent: string[]) =>
  sent.filter((q) => !q.startsWith('select pg_notify('));

export async function queriesDuring(fn: () => Promise<unknown>): Promise<string[]> {
  sent.length = 0;
  sentWhenAnswered.clear();
  recording = true;
  try {
    await fn();
  } finally {
    recording = false;
  }
  return [...sent];
}
