import { sql, type Kysely } from 'kysely';

/**
 * Idempotency records of answers that carry a secret (a new webhook endpoint's or a
 * rotation's `whsec_`) are sealed since this version (commands/idempotency.ts); the
 * ones recorded before it hold the secret in clear, and nothing else removes them.
 * They are forgotten: a repeat of such a request within its 24 hours now runs again
 * (one more endpoint, or one more rotation) rather than keep the secret readable.
 * A record in clear is JSON, and a secret is its `"secret":"…"` member; text inside a
 * string value would have its quotes escaped.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from idempotency_keys where response_body like ${'{%"secret":"%'}`.execute(db);
}
