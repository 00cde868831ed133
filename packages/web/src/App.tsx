import { useCallback, useEffect, useState } from 'react';
import { SignInPage } from './features/auth/SignInPage.tsx';
import { CallsPage } from './features/calls/CallsPage.tsx';
import { ContactsPage } from './features/contacts/ContactsPage.tsx';
import { DashboardPage } from './features/dashboard/DashboardPage.tsx';
import { InboxPage } from './features/inbox/InboxPage.tsx';
import { DeepLinkRoute } from './features/links/DeepLinkRoute.tsx';
import { AppShell } from './features/shell/AppShell.tsx';
import { IncomingCalls } from './features/calls/IncomingCalls.tsx';
import { NotFound } from './features/shell/NotFound.tsx';
import { LiveAnnouncer } from './lib/announcer.tsx';
import { loadMe } from './lib/api.ts';
import { lastMe, rememberMe } from './lib/offline-store.ts';
import { useRoute } from './lib/router.tsx';
import { SessionProvider, useSession } from './lib/session.tsx';
import type { Me } from './lib/types.ts';

type Boot =
  | { status: 'loading' }
  | { status: 'signed-out'; ended?: boolean }
  /** `offline`: opened without a network, as the user this device saw last. */
  | { status: 'signed-in'; me: Me; offline?: boolean }
  | { status: 'unreachable'; message: string };

/** The whole app: who is signed in decides between the sign-in page and the softphone. */
export function App() {
  const [boot, setBoot] = useState<Boot>({ status: 'loading' });

  const load = useCallback(async () => {
    try {
      const me = await loadMe();
      if (me) rememberMe(me);
      setBoot(me ? { status: 'signed-in', me } : { status: 'signed-out' });
    } catch (error) {
      // No network: the installed app opens on what this device last saw (read-only, with
      // an outbox); without any, it can only say so.
      const cached = lastMe();
      if (cached) setBoot({ status: 'signed-in', me: cached, offline: true });
      else setBoot({ status: 'unreachable', message: (error as Error).message });
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  // Started offline, it tries again by itself once the network is back.
  const unreachable =
    boot.status === 'unreachable' || (boot.status === 'signed-in' && boot.offline === true);
  useEffect(() => {
    if (!unreachable) return;
    const retry = () => void load();
    window.addEventListener('online', retry);
    return () => window.removeEventListener('online', retry);
  }, [unreachable, load]);
  const onSignedOut = useCallback(
    (ended?: boolean) => setBoot({ status: 'signed-out', ended: ended === true }),
    [],
  );

  let screen;
  if (boot.status === 'loading') {
    screen = (
      <div className="boot" aria-busy="true">
        <span className="visually-hidden">Loading Switchboard…</span>
      </div>
    );
  } else if (boot.status === 'unreachable') {
    screen = (
      <main className="boot" id="main">
        <div className="boot-card">
          <h1>Can’t reach Switchboard</h1>
          <p>{boot.message}</p>
          <button type="button" className="button primary" onClick={() => void load()}>
            Try again
          </button>
        </div>
      </main>
    );
  } else if (boot.status === 'signed-out') {
    // The URL is left alone, so a deep link opened while signed out still applies afterwards.
    screen = <SignInPage onSignedIn={load} sessionEnded={boot.ended === true} />;
  } else {
    screen = (
      <SessionProvider me={boot.me} onSignedOut={onSignedOut}>
        <AppShell>
          <Routes />
          <IncomingCalls />
        </AppShell>
      </SessionProvider>
    );
  }
  return (
    <>
      {screen}
      <LiveAnnouncer />
    </>
  );
}

function Routes() {
  const { path } = useRoute();
  const { isOwner } = useSession();
  const parts = path.split('/').filter(Boolean);
  if (parts[0] !== 'app') return <NotFound />;
  const [section, id] = [parts[1], parts[2]];
  switch (section) {
    case undefined:
    case 'inbox':
      return <InboxPage conversationId={id ?? null} />;
    case 'calls':
      return <CallsPage />;
    case 'contacts':
      return <ContactsPage />;
    case 'dashboard':
      return isOwner ? <DashboardPage section={id ?? 'keys'} /> : <NotFound />;
    case 'link':
      return <DeepLinkRoute />;
    default:
      return <NotFound />;
  }
}
