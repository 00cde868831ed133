/** Epoch milliseconds as the API's UTC date-time string. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
