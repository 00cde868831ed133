import type { ApiClient } from './api.ts';
import type { Alert } from './live-data.ts';

/** What the signed-in user wants to be notified of (`/app/api/notification-settings`). */
export interface NotificationSettings {
  texts: 'all' | 'mine' | 'none';
  calls: boolean;
  sound: boolean;
}

const COUNT = /^\(\d+\) /;

/**
 * Keeps "(n) " in front of the tab's title while n conversations are unread, whatever title
 * the screen sets, and the installed app's badge at n. Returns the way to stop.
 */
export function showUnreadCount(count: number): () => void {
  const apply = () => {
    const bare = document.title.replace(COUNT, '');
    const title = count > 0 ? `(${count}) ${bare}` : bare;
    if (document.title !== title) document.title = title;
  };
  apply();
  const observer = new MutationObserver(apply);
  const head = document.querySelector('head');
  if (head) observer.observe(head, { subtree: true, childList: true, characterData: true });
  if ('setAppBadge' in navigator) {
    const badge = count > 0 ? navigator.setAppBadge(count) : navigator.clearAppBadge();
    // Refused where the app is not installed; the title still says it.
    badge.catch(() => undefined);
  }
  return () => observer.disconnect();
}

/** Whether an alert is one the user asked for. */
export function wanted(alert: Alert, settings: NotificationSettings): boolean {
  switch (alert.kind) {
    case 'text':
      return settings.texts === 'all' || (settings.texts === 'mine' && alert.mine);
    case 'call':
      return settings.calls;
    case 'mention':
    case 'assignment':
      return true;
  }
}

/** A short two-note chime, made on the spot: no sound file to fetch or cache. */
export function chime(): void {
  const Context = window.AudioContext;
  if (!Context) return;
  const audio = new Context();
  const gain = audio.createGain();
  gain.connect(audio.destination);
  gain.gain.setValueAtTime(0.08, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.5);
  [880, 1320].forEach((frequency, i) => {
    const tone = audio.createOscillator();
    tone.frequency.value = frequency;
    tone.connect(gain);
    tone.start(audio.currentTime + i * 0.12);
    tone.stop(audio.currentTime + 0.5);
  });
  setTimeout(() => void audio.close(), 700);
}

/** The thread an alert opens. */
export function alertUrl(alert: Alert): string {
  return alert.conversationId ? `/app/inbox/${alert.conversationId}` : '/app/calls';
}

/** Whether notifications can be shown here at all. */
export function notificationsSupported(): boolean {
  return 'Notification' in window;
}

/** This browser's push subscription for the app, if it has one. */
export async function currentPushSubscription(): Promise<PushSubscription | null> {
  if (!('serviceWorker' in navigator) || !('PushManager' in window)) return null;
  const registration = await navigator.serviceWorker.getRegistration('/app/');
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/**
 * Subscribes this browser to the account's pushes (asking permission first) and registers the
 * subscription with the server, so notifications arrive with no tab open.
 */
export async function enablePush(api: ApiClient): Promise<void> {
  if ((await Notification.requestPermission()) !== 'granted') {
    throw new Error('Notifications are blocked for this site in the browser’s settings.');
  }
  const registration = await navigator.serviceWorker.ready;
  const { publicKey } = await api.get<{ publicKey: string }>('/push/key');
  const subscription =
    (await registration.pushManager.getSubscription()) ??
    (await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: publicKey,
    }));
  await api.post('/push/subscriptions', subscription.toJSON());
}

/** Unsubscribes this browser and tells the server to forget it. */
export async function disablePush(api: ApiClient): Promise<void> {
  const subscription = await currentPushSubscription();
  if (!subscription) return;
  await api.post('/push/subscriptions/remove', { endpoint: subscription.endpoint });
  await subscription.unsubscribe();
}
