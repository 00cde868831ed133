import type { NotificationSettings } from '../domain/notification-rules.ts';
import { validationError } from '../domain/errors.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { saveNotificationSettings } from '../store/repos/push.ts';
import type { CommandDeps } from './context.ts';
import type { TeamActor } from './team-context.ts';

/** Saves what the signed-in user wants to be notified of, for every device of theirs. */
export async function updateNotificationSettings(
  tx: WriteTx,
  actor: TeamActor,
  settings: NotificationSettings,
  deps: CommandDeps,
): Promise<NotificationSettings> {
  if (!['all', 'mine', 'none'].includes(settings.texts)) {
    throw validationError('texts', "texts must be 'all', 'mine' or 'none'.");
  }
  await saveNotificationSettings(tx.db, {
    user_id: actor.userId,
    texts: settings.texts,
    calls: settings.calls ? 1 : 0,
    sound: settings.sound ? 1 : 0,
    updated_at: deps.clock.now(),
  });
  return settings;
}
