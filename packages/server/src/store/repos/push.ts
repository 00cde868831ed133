import type { Kysely, Selectable } from 'kysely';
import type {
  DB,
  NotificationSettingsTable,
  PushKeysTable,
  PushSubscriptionsTable,
} from '../schema.ts';

export type PushKeysRow = Selectable<PushKeysTable>;
export type PushSubscriptionRow = Selectable<PushSubscriptionsTable>;
export type NotificationSettingsRow = Selectable<NotificationSettingsTable>;

// Keyed by the signed-in user's account or id, which the session gives: none of these
// is a read of account data by a caller-chosen id.

/** The account's VAPID keys, if made. */
export function findPushKeys(db: Kysely<DB>, accountId: string): Promise<PushKeysRow | undefined> {
  return db
    .selectFrom('push_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** Stores the account's VAPID keys unless it has some: they are made once. */
export async function insertPushKeysIfAbsent(db: Kysely<DB>, row: PushKeysRow): Promise<void> {
  await db
    .insertInto('push_keys')
    .values(row)
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
}

/** Records a browser's subscription for a user (a browser re-subscribing moves it to them). */
export async function savePushSubscription(
  db: Kysely<DB>,
  row: PushSubscriptionRow,
): Promise<void> {
  await db
    .insertInto('push_subscriptions')
    .values(row)
    .onConflict((oc) =>
      oc.column('endpoint').doUpdateSet({
        user_id: row.user_id,
        account_id: row.account_id,
        p256dh: row.p256dh,
        auth: row.auth,
      }),
    )
    .execute();
}

/** Forgets a subscription of a user; true when there was one. */
export async function deletePushSubscription(
  db: Kysely<DB>,
  userId: string,
  endpoint: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('push_subscriptions')
    .where('endpoint', '=', endpoint)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Forgets a subscription its push service says is gone. */
export async function deleteGoneSubscription(db: Kysely<DB>, endpoint: string): Promise<void> {
  await db.deleteFrom('push_subscriptions').where('endpoint', '=', endpoint).execute();
}

/** Whether any browser subscribed to notifications, in any account. */
export async function anyPushSubscription(db: Kysely<DB>): Promise<boolean> {
  const rows = await db.selectFrom('push_subscriptions').select('endpoint').limit(1).execute();
  return rows.length > 0;
}

/**
 * Every subscription of an account's enabled users, with each user's settings (null:
 * defaults): a disabled teammate's devices hear nothing until they are enabled again.
 */
export function subscriptionsOfAccount(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('push_subscriptions')
    .innerJoin('users', 'users.id', 'push_subscriptions.user_id')
    .leftJoin(
      'notification_settings',
      'notification_settings.user_id',
      'push_subscriptions.user_id',
    )
    .select([
      'push_subscriptions.endpoint',
      'push_subscriptions.user_id',
      'push_subscriptions.p256dh',
      'push_subscriptions.auth',
      'notification_settings.texts',
      'notification_settings.calls',
    ])
    .where('push_subscriptions.account_id', '=', accountId)
    .where('users.disabled_at', 'is', null)
    .execute();
}

/** A user's notification settings, if they changed the defaults. */
export function findNotificationSettings(
  db: Kysely<DB>,
  userId: string,
): Promise<NotificationSettingsRow | undefined> {
  return db
    .selectFrom('notification_settings')
    .selectAll()
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Saves a user's notification settings. */
export async function saveNotificationSettings(
  db: Kysely<DB>,
  row: NotificationSettingsRow,
): Promise<void> {
  await db
    .insertInto('notification_settings')
    .values(row)
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        texts: row.texts,
        calls: row.calls,
        sound: row.sound,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}
