import { useEffect, useId, type ReactNode } from 'react';
import { Icon, type IconName } from '../../lib/icons.tsx';
import { Link, navigate, useRoute } from '../../lib/router.tsx';
import { useLive, useSession } from '../../lib/session.tsx';
import type { Mode } from '../../lib/types.ts';
import { Notifier } from '../notifications/Notifier.tsx';
import { Logo } from './Logo.tsx';

interface NavItem {
  href: string;
  label: string;
  icon: IconName;
  badge?: number;
}

/** Sets the tab's title for the screen on display. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Switchboard`;
  }, [title]);
}

/**
 * The frame around every signed-in screen: the rail (Inbox, Calls, Contacts, and the Dashboard
 * for owners), the test/live switch, the connection state and the account menu. On phones the
 * rail becomes a tab bar at the bottom and the account controls move to a top bar.
 */
export function AppShell(props: { children: ReactNode }) {
  const { isOwner } = useSession();
  const live = useLive();
  const { path } = useRoute();
  const unread = (live.conversations ?? []).filter((c) => c.unreadCount > 0).length;
  const items: NavItem[] = [
    { href: '/app/inbox', label: 'Inbox', icon: 'inbox', badge: unread },
    { href: '/app/calls', label: 'Calls', icon: 'phone' },
    { href: '/app/contacts', label: 'Contacts', icon: 'users' },
  ];
  if (isOwner) items.push({ href: '/app/dashboard', label: 'Dashboard', icon: 'settings' });
  const active = (href: string) =>
    path === href || path.startsWith(`${href}/`) || (href === '/app/inbox' && path === '/app');

  return (
    <div className="shell">
      <Notifier />
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="phone-bar">
        <Logo />
        <AccountControls compact />
      </header>
      <nav className="rail" aria-label="Main">
        <div className="rail-brand">
          <Logo />
        </div>
        <ul className="rail-list">
          {items.map((item) => (
            <li key={item.href}>
              <Link
                href={item.href}
                className="rail-link"
                aria-current={active(item.href) ? 'page' : undefined}
              >
                <Icon name={item.icon} size={20} />
                <span className="rail-label">{item.label}</span>
                {item.badge ? (
                  <span className="badge" aria-label={`${item.badge} unread`}>
                    {item.badge}
                  </span>
                ) : null}
              </Link>
            </li>
          ))}
        </ul>
        <div className="rail-foot">
          <AccountControls />
        </div>
      </nav>
      <main className="main" id="main" tabIndex={-1}>
        <OfflineNotice />
        {props.children}
      </main>
    </div>
  );
}

/** Said while the browser has no network: what is shown is this device's copy, and sends wait. */
function OfflineNotice() {
  const { connection, outbox } = useLive();
  if (connection !== 'no-network' && outbox.length === 0) return null;
  return (
    <p className="offline-notice" role="status">
      {connection === 'no-network'
        ? 'Offline: showing what this device last saw. Texts you send wait in the outbox and go out once you are back online.'
        : 'Back online: sending the texts in the outbox…'}
      {outbox.length > 0 && ` (${outbox.length} waiting)`}
    </p>
  );
}

function AccountControls(props: { compact?: boolean }) {
  const { me, mode, setMode, signOut } = useSession();
  const { connection } = useLive();
  const { path } = useRoute();
  const name = useId();
  const switchTo = (next: Mode) => {
    setMode(next);
    // A thread belongs to one mode; in the other it does not exist.
    if (path.startsWith('/app/inbox/')) navigate('/app/inbox');
  };
  const modes: Mode[] = ['test', 'live'];
  const status =
    connection === 'live'
      ? 'Live updates on'
      : connection === 'connecting'
        ? 'Connecting…'
        : connection === 'no-network'
          ? 'Offline: no network'
          : 'Reconnecting…';
  return (
    <div className={props.compact ? 'account compact' : 'account'}>
      <fieldset className="mode-switch">
        <legend className="visually-hidden">Mode</legend>
        {modes.map((m) => (
          <label key={m} className={`mode-option ${m}`}>
            <input
              type="radio"
              name={name}
              value={m}
              checked={mode === m}
              onChange={() => switchTo(m)}
            />
            <span>{m === 'test' ? 'Test' : 'Live'}</span>
          </label>
        ))}
      </fieldset>
      {!props.compact && (
        <p className={`connection ${connection}`}>
          <span className="dot" aria-hidden="true" />
          {status}
        </p>
      )}
      <div className="whoami">
        {!props.compact && (
          <div className="whoami-text">
            <span className="whoami-name">{me.user.name}</span>
            <span className="whoami-account">{me.account.name}</span>
          </div>
        )}
        <button
          type="button"
          className="icon-button"
          onClick={() => void signOut()}
          aria-label={`Sign out ${me.user.name}`}
          title="Sign out"
        >
          <Icon name="logout" />
        </button>
      </div>
    </div>
  );
}
