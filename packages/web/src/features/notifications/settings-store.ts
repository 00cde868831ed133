import { useEffect, useSyncExternalStore } from 'react';
import type { ApiClient } from '../../lib/api.ts';
import type { NotificationSettings } from '../../lib/notifications.ts';

// One copy for the notifier and the settings panel: a change in the panel applies at once.
let current: NotificationSettings | null = null;
const listeners = new Set<() => void>();
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
function set(settings: NotificationSettings): void {
  current = settings;
  for (const listener of listeners) listener();
}

/** The signed-in user's notification settings (null until loaded). */
export function useNotificationSettings(api: ApiClient): NotificationSettings | null {
  useEffect(() => {
    api.get<NotificationSettings>('/notification-settings').then(set, () => undefined);
  }, [api]);
  return useSyncExternalStore(subscribe, () => current);
}

/** Saves the user's settings, for every device of theirs; shown at once, undone if refused. */
export async function saveNotificationSettings(
  api: ApiClient,
  settings: NotificationSettings,
): Promise<void> {
  const before = current;
  set(settings);
  try {
    set(await api.post<NotificationSettings>('/notification-settings', settings));
  } catch (error) {
    if (before) set(before);
    throw error;
  }
}
