import type { Kysely } from 'kysely';
import type { DB } from '../schema.ts';

/**
 * Forgets what a removed teammate leaves behind: their devices' push subscriptions, their
 * notification settings and read marks, and their assignments (those conversations become
 * unassigned). Their notes stay in the threads, as the team wrote them.
 */
export async function forgetTeammateTraces(db: Kysely<DB>, userId: string): Promise<void> {
  await db.deleteFrom('push_subscriptions').where('user_id', '=', userId).execute();
  await db.deleteFrom('notification_settings').where('user_id', '=', userId).execute();
  await db.deleteFrom('conversation_reads').where('user_id', '=', userId).execute();
  await db
    .updateTable('conversation_states')
    .set({ assignee_id: null })
    .where('assignee_id', '=', userId)
    .execute();
}
