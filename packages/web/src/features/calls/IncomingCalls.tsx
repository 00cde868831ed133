import { useEffect, useRef, useState } from 'react';
import { formatPhone } from '../../lib/format.ts';
import type { IncomingCall, PhoneCall } from '../../lib/phone.ts';
import { useSession } from '../../lib/session.tsx';
import { InCall } from './InCall.tsx';

/**
 * Calls to the account ring here while signed in, on every screen: the caller's name from the
 * contacts, Answer and Decline. When another device answers first, this one stops ringing and
 * says so. Where the server has no voice, nothing shows.
 */
export function IncomingCalls() {
  const { api, live } = useSession();
  const [ringing, setRinging] = useState<IncomingCall | null>(null);
  const [call, setCall] = useState<PhoneCall | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const speaker = useRef<HTMLAudioElement>(null);

  useEffect(() => {
    let stop: (() => void) | null = null;
    let ended = false;
    const phone = import('../../lib/phone.ts');
    phone
      .then(({ listenForCalls }) =>
        listenForCalls(api, (incoming) => {
          setNotice(null);
          setRinging(incoming);
          incoming.onGone((why) => {
            setRinging((now) => (now === incoming ? null : now));
            if (why === 'answered-elsewhere') setNotice('Answered elsewhere');
          });
        }),
      )
      .then(
        (unlisten) => {
          if (ended) unlisten();
          else stop = unlisten;
        },
        () => {
          // No voice on this server: calls go to the devices' phone apps instead.
        },
      );
    return () => {
      ended = true;
      stop?.();
      // Signed out or switched mode: this device leaves the registrar with its credentials.
      void phone.then(({ stopPhone }) => stopPhone()).catch(() => {});
    };
  }, [api]);

  const answer = (incoming: IncomingCall) => {
    if (!speaker.current) return;
    setRinging(null);
    incoming
      .answer(speaker.current)
      .then(setCall, (failure: unknown) =>
        setNotice(failure instanceof Error ? failure.message : String(failure)),
      );
  };

  return (
    <>
      <audio ref={speaker} autoPlay hidden />
      {ringing && (
        <div className="incoming-call card" role="alertdialog" aria-label="Incoming call">
          <p className="call-active-title">{live.label(ringing.from)}</p>
          {live.nameFor(ringing.from) && <p className="muted">{formatPhone(ringing.from)}</p>}
          <p>Incoming call</p>
          <div className="button-row">
            <button type="button" className="button primary" onClick={() => answer(ringing)}>
              Answer
            </button>
            <button type="button" className="button danger" onClick={() => ringing.decline()}>
              Decline
            </button>
          </div>
        </div>
      )}
      {call && (
        <div className="incoming-call card">
          <InCall call={call} onClose={() => setCall(null)} />
        </div>
      )}
      {notice && (
        <p className="incoming-call-notice" role="status">
          {notice}
        </p>
      )}
    </>
  );
}
