/**
 * The address a connection comes from, as limits count it: an IPv4 client of a
 * dual-stack socket (`::ffff:203.0.113.7`) is the same client as `203.0.113.7`.
 * It is the connecting peer's address: behind a reverse proxy, every client is the
 * proxy (README, Configuration).
 */
export function clientAddress(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return 'unknown';
  return remoteAddress.toLowerCase().startsWith('::ffff:') && remoteAddress.includes('.')
    ? remoteAddress.slice(7)
    : remoteAddress;
}
