/**
 * Epoch milliseconds of a date-time the request schema has accepted (`format:
 * date-time`, which also lets through ISO 8601's offset of hours alone, `+01`), or
 * NaN. Date.parse reads neither that offset nor a leap second (`23:59:60`, which
 * RFC 3339 allows): the offset is read as `+01:00`, and the leap second as POSIX time
 * counts it, the first instant of the next minute.
 */
export function parseDateTime(text: string): number {
  const normal = text.replace(/([+-]\d\d)$/, '$1:00');
  const ms = Date.parse(normal);
  if (!Number.isNaN(ms)) return ms;
  const leap = /^(.+[Tt\s]\d\d:\d\d:)60(.*)$/.exec(normal);
  return leap ? Date.parse(`${leap[1]}59${leap[2]}`) + 1000 : Number.NaN;
}
