import type { Kysely } from 'kysely';

/**
 * SIP trunks (docs/behaviour.md#voice): a carrier connection of type `sip`, and the trunk a
 * live number's calls go through (`phone_numbers.voice_carrier_id`), apart from the SMSC its
 * texts go through. A number without one takes no live calls.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('phone_numbers').addColumn('voice_carrier_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('phone_numbers').dropColumn('voice_carrier_id').execute();
}
