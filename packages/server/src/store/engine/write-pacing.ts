// How the background lanes (the carrier side, webhook delivery) give way to requests
// on the writer: acceptance comes first.

/**
 * While requests keep the writer busy (BUSY_SHARE of its time, lately), the units
 * of the background lanes (the carrier side, webhook delivery) commit at most once
 * per this many milliseconds, all those waiting together; otherwise they run as
 * soon as they come.
 *
 * Acceptance comes first: under a load that saturates the writer, a send's `201`
 * waits for nobody's receipts, and the CPU the carrier side would have taken goes
 * to requests. The carrier side slows down but never stops (each of its rounds
 * still commits within this time) and catches up once the burst is over; what it
 * still has to do stays queued in the database meanwhile. A steady trickle of
 * requests (hundreds a second) leaves the writer mostly idle and delays nothing.
 * On PostgreSQL the lanes commit on connections of their own, side by side, but
 * share the store thread and the machine's cores with the server: the background
 * lanes wait the same way while the request lane is saturated (WriteQueue.saturated).
 * A POST load kept the carrier side fully up with the sends, and its work halved the
 * rate they were accepted at (docs/benchmarks.md).
 */
export const BACKGROUND_WAIT_MS = 25;

/** The share of the writer's time requests must have taken lately for the background to wait. */
export const BUSY_SHARE = 0.5;

/**
 * Above this share of the writer's time taken by requests lately (`requestLoad`),
 * background workers run small rounds: requests wait behind each of their batches.
 */
const REQUESTS_ABOUT = 0.05;

/**
 * How many units a background worker's round takes, one batch and one transaction,
 * given the store's `requestLoad()`. A round holds the writer while it runs (~20 µs a
 * receipt), and requests wait behind it: while there are any, 50 keep that near a
 * millisecond (200 took ~4 ms, a stall in the POST load's pipeline); otherwise 500
 * share each flush of the log (a backlog drained at 19 k messages/s instead of 9 k).
 */
export function backgroundRound(requestLoad: number): number {
  return requestLoad > REQUESTS_ABOUT ? 50 : 500;
}
