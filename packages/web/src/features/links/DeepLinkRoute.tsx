import { parseDeepLink } from '@switchboard/sdk/deep-links';
import { useEffect, useRef, useState } from 'react';
import { navigate } from '../../lib/router.tsx';
import { useSession } from '../../lib/session.tsx';
import type { DraftState } from '../inbox/InboxPage.tsx';
import type { DialState } from '../calls/Dialer.tsx';

/**
 * `/app/link?action=sms|call&to=…` and `/app/link?uri=web+switchboard:…` (spec 4.6): opens the
 * composer with the draft, or the dialer, and never sends or dials by itself unless `ad=1`.
 * Links the SDK's parser refuses (unknown action, malformed `to`) land on the inbox, silently.
 * The link is replaced in history, so going back does not open it again.
 */
export function DeepLinkRoute() {
  const { numbers } = useSession();
  const [href] = useState(() => window.location.href);
  // Handled once: the navigation below replaces the URL this screen was opened with.
  const handled = useRef(false);
  useEffect(() => {
    if (handled.current) return;
    handled.current = true;
    const link = parseDeepLink(href);
    if (link === null) {
      navigate('/app/inbox', { replace: true });
    } else if (link.action === 'sms') {
      // `from` picks the line only if it is one of this account's numbers in this mode.
      const from = link.from !== undefined && numbers.includes(link.from) ? link.from : undefined;
      const state: DraftState = {
        draft: {
          to: [link.to],
          ...(from ? { from } : {}),
          ...(link.body ? { body: link.body } : {}),
        },
      };
      navigate('/app/inbox/new', { replace: true, state });
    } else {
      const state: DialState = { dial: { to: link.to, autoDial: link.autoDial } };
      navigate('/app/calls', { replace: true, state });
    }
  }, [href, numbers]);
  return <p className="list-note">Opening link…</p>;
}
