// PostgreSQL's text cannot hold the NUL character (U+0000): a statement comparing a
// column with a string that holds one fails. No stored id holds one (the service makes
// them; domain/text-rules.ts refuses NUL in the text it keeps), so a lookup by such a
// string answers without asking, the same on both engines.

/** True when `id` holds a NUL, so it can name nothing stored. */
export function namesNothing(id: string): boolean {
  return id.includes('\u0000');
}

/** A page cursor as it is compared: up to its first NUL, as no id holds one. */
export function comparableCursor(cursor: string): string {
  const at = cursor.indexOf('\u0000');
  return at === -1 ? cursor : cursor.slice(0, at);
}
