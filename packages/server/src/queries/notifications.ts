import type { Kysely } from 'kysely';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  type NotificationSettings,
} from '../domain/notification-rules.ts';
import { findNotificationSettings, findPushKeys } from '../store/repos/push.ts';
import type { DB } from '../store/schema.ts';

/** The account's VAPID public key, if made. */
export async function loadPushPublicKey(db: Kysely<DB>, accountId: string): Promise<string | null> {
  return (await findPushKeys(db, accountId))?.public_key ?? null;
}

/** What a user is notified of: their choice, or the defaults. */
export async function loadNotificationSettings(
  db: Kysely<DB>,
  userId: string,
): Promise<NotificationSettings> {
  const row = await findNotificationSettings(db, userId);
  if (!row) return DEFAULT_NOTIFICATION_SETTINGS;
  return { texts: row.texts, calls: row.calls === 1, sound: row.sound === 1 };
}
