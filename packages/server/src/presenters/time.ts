// The last conversion, kept: a burst of messages made in one millisecond (a batch of sends,
// their receipts) formats the same instant over and over, and toISOString was ~2 % of a
// message's CPU.
let lastMs = Number.NaN;
let lastText = '';

/** Epoch milliseconds as the API's UTC date-time string. */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}
