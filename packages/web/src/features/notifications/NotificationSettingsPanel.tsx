import { useEffect, useId, useState } from 'react';
import {
  currentPushSubscription,
  disablePush,
  enablePush,
  notificationsSupported,
  type NotificationSettings,
} from '../../lib/notifications.ts';
import { useSession } from '../../lib/session.tsx';
import { notePushHere } from './Notifier.tsx';
import { saveNotificationSettings, useNotificationSettings } from './settings-store.ts';

const TEXT_CHOICES: [NotificationSettings['texts'], string][] = [
  ['all', 'All new texts'],
  ['mine', 'Only mine (assigned to me)'],
  ['none', 'No texts'],
];

/** The user's notification settings, and push on this device. */
export function NotificationSettingsPanel() {
  const { live } = useSession();
  const settings = useNotificationSettings(live.api);
  const [push, setPush] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  useEffect(() => {
    currentPushSubscription().then(
      (s) => setPush(s !== null),
      () => setPush(false),
    );
  }, []);

  if (!settings) return null;
  const change = (patch: Partial<NotificationSettings>) =>
    saveNotificationSettings(live.api, { ...settings, ...patch }).then(
      () => setError(null),
      (e: Error) => setError(e.message),
    );
  const togglePush = async () => {
    try {
      if (push) await disablePush(live.api);
      else await enablePush(live.api);
      setPush(!push);
      notePushHere(!push);
      setError(null);
    } catch (e) {
      setError(`Push not turned on: ${(e as Error).message}`);
    }
  };

  return (
    <details className="notify-settings">
      <summary>Notifications</summary>
      <fieldset>
        <legend>Texts</legend>
        {TEXT_CHOICES.map(([value, label]) => (
          <label key={value} className="notify-choice">
            <input
              type="radio"
              name={`${id}-texts`}
              checked={settings.texts === value}
              onChange={() => void change({ texts: value })}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <label className="notify-choice">
        <input
          type="checkbox"
          checked={settings.calls}
          onChange={(e) => void change({ calls: e.target.checked })}
        />
        Calls
      </label>
      <label className="notify-choice">
        <input
          type="checkbox"
          checked={settings.sound}
          onChange={(e) => void change({ sound: e.target.checked })}
        />
        Play a sound
      </label>
      {notificationsSupported() && (
        <div className="notify-actions">
          {Notification.permission === 'default' && (
            <button
              type="button"
              className="button small"
              onClick={() => void Notification.requestPermission().then(() => setError(null))}
            >
              Allow notifications
            </button>
          )}
          {push !== null && 'PushManager' in window && (
            <button type="button" className="button small" onClick={() => void togglePush()}>
              {push ? 'Turn off push on this device' : 'Turn on push on this device'}
            </button>
          )}
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </details>
  );
}
