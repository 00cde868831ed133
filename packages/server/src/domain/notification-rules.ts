/** What a user wants to be notified of. */
export interface NotificationSettings {
  /** New texts: every one, only those of conversations assigned to them, or none. */
  texts: 'all' | 'mine' | 'none';
  calls: boolean;
  sound: boolean;
}

/** Until a user chooses: every new text and call, without sound. */
export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  texts: 'all',
  calls: true,
  sound: false,
};

/** Something that may be worth a notification to a user. */
export type NotifiableEvent =
  | { kind: 'text'; assigneeId: string | null }
  | { kind: 'call' }
  | { kind: 'mention'; userIds: string[] }
  | { kind: 'assignment'; assigneeId: string; byUserId: string };

/**
 * Whether `userId`, with `settings`, is notified of `event`. Mentions and assignments by
 * someone else are always theirs: they are about them. Texts follow the setting, "mine"
 * meaning conversations assigned to them.
 */
export function shouldNotify(
  userId: string,
  settings: Pick<NotificationSettings, 'texts' | 'calls'>,
  event: NotifiableEvent,
): boolean {
  switch (event.kind) {
    case 'text':
      return settings.texts === 'all' || (settings.texts === 'mine' && event.assigneeId === userId);
    case 'call':
      return settings.calls;
    case 'mention':
      return event.userIds.includes(userId);
    case 'assignment':
      return event.assigneeId === userId && event.byUserId !== userId;
  }
}
