import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { announce } from './announcer.tsx';
import { createApiClient, signOut as endSession, type ApiClient } from './api.ts';
import { LiveData, type LiveSnapshot } from './live-data.ts';
import { forgetUser } from './offline-store.ts';
import type { Me, Mode } from './types.ts';

/** The signed-in user's world: who they are, the mode on screen, and its live data. */
export interface Session {
  me: Me;
  mode: Mode;
  setMode(mode: Mode): void;
  api: ApiClient;
  live: LiveData;
  /** The account's numbers in the current mode, the first being the default line. */
  numbers: string[];
  isOwner: boolean;
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);
const MODE_KEY = 'switchboard.mode';

function storedMode(): Mode {
  // A link into a live-mode thread (a push notification's) says so: ?mode=live.
  const asked = new URLSearchParams(window.location.search).get('mode');
  if (asked === 'live' || asked === 'test') return asked;
  try {
    return window.localStorage.getItem(MODE_KEY) === 'live' ? 'live' : 'test';
  } catch {
    return 'test';
  }
}

/** Provides the session to every screen; a mode switch swaps the API client and live data. */
export function SessionProvider(props: {
  me: Me;
  /** `ended`: the session ended without this tab asking (expired, signed out elsewhere). */
  onSignedOut: (ended?: boolean) => void;
  children: ReactNode;
}) {
  const { me, onSignedOut } = props;
  const [mode, setModeState] = useState<Mode>(storedMode);
  const ended = useCallback(() => {
    // Ended elsewhere (expired, removed by an owner): what this device kept goes too.
    forgetUser(me.user.id);
    onSignedOut(true);
  }, [me.user.id, onSignedOut]);
  const api = useMemo(
    () => createApiClient(mode, me.csrfToken, ended),
    [mode, me.csrfToken, ended],
  );
  const live = useMemo(
    () => new LiveData(api, announce, ended, me.user.id),
    [api, ended, me.user.id],
  );
  useEffect(() => {
    live.start();
    return () => live.stop();
  }, [live]);

  const setMode = useCallback((next: Mode) => {
    try {
      window.localStorage.setItem(MODE_KEY, next);
    } catch {
      // Private windows may refuse storage; the switch still applies to this tab.
    }
    setModeState(next);
  }, []);

  const signOut = useCallback(async () => {
    live.stop();
    // Nothing of this user stays on a device they signed out of.
    forgetUser(me.user.id);
    await endSession(me.csrfToken).catch(() => undefined);
    onSignedOut();
  }, [live, me.csrfToken, me.user.id, onSignedOut]);

  const session = useMemo<Session>(
    () => ({
      me,
      mode,
      setMode,
      api,
      live,
      numbers: me.numbers[mode],
      isOwner: me.user.role === 'owner',
      signOut,
    }),
    [me, mode, setMode, api, live, signOut],
  );
  return <SessionContext value={session}>{props.children}</SessionContext>;
}

/** The session of the signed-in screens. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The live snapshot; the component re-renders on every change. */
export function useLive(): LiveSnapshot {
  const { live } = useSession();
  return useSyncExternalStore(live.subscribe, live.getSnapshot);
}
