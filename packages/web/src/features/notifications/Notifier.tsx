import { useEffect, useRef } from 'react';
import {
  alertUrl,
  chime,
  currentPushSubscription,
  notificationsSupported,
  showUnreadCount,
  wanted,
} from '../../lib/notifications.ts';
import { navigate, useRoute } from '../../lib/router.tsx';
import { useLive, useSession } from '../../lib/session.tsx';
import { useNotificationSettings } from './settings-store.ts';

/** Whether this device gets pushes: the service worker then notifies while the tab is hidden. */
let pushHere = false;
/** Called once push is turned on or off here. */
export function notePushHere(on: boolean): void {
  pushHere = on;
}

/**
 * Tells the user what arrives: the unread count in the title and the app badge, a
 * notification (Notification API) for what their settings ask for, unless they are looking
 * at that thread, and the chime if they chose it. Renders nothing.
 */
export function Notifier() {
  const { live } = useSession();
  const { conversations } = useLive();
  const settings = useNotificationSettings(live.api);
  const { path } = useRoute();
  const open = useRef<string | null>(null);
  open.current = /^\/app\/inbox\/(cv_[^/]+)$/.exec(path)?.[1] ?? null;

  const unread = (conversations ?? []).filter((c) => c.unreadCount > 0).length;
  useEffect(() => showUnreadCount(unread), [unread]);

  useEffect(() => {
    currentPushSubscription().then(
      (s) => notePushHere(s !== null),
      () => undefined,
    );
  }, []);

  useEffect(() => {
    if (!settings) return;
    return live.onAlert((alert) => {
      if (!wanted(alert, settings)) return;
      const visible = document.visibilityState === 'visible';
      if (visible && alert.conversationId !== null && alert.conversationId === open.current) {
        return;
      }
      if (settings.sound) chime();
      if (!notificationsSupported() || Notification.permission !== 'granted') return;
      // Hidden, with pushes coming here, the service worker shows it: once is enough.
      if (!visible && pushHere) return;
      const notification = new Notification(alert.title, {
        body: alert.body,
        tag: alert.conversationId ?? alert.kind,
        icon: '/app/icons/icon-192.png',
      });
      notification.onclick = () => {
        window.focus();
        navigate(alertUrl(alert));
        notification.close();
      };
    });
  }, [live, settings]);

  return null;
}
