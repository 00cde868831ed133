import { useEffect, useState } from 'react';
import { formatPhone } from '../../lib/format.ts';
import type { CallView, PhoneCall } from '../../lib/phone.ts';
import { useSession } from '../../lib/session.tsx';

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'];

/** Minutes and seconds since `since`, e.g. `1:05`. */
function elapsed(since: number, now: number): string {
  const seconds = Math.max(0, Math.floor((now - since) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** The 12 keys of a phone; `onKey` hears each press. */
export function Keypad(props: { onKey(key: string): void; label: string }) {
  return (
    <div className="keypad" role="group" aria-label={props.label}>
      {KEYS.map((key) => (
        <button key={key} type="button" className="button" onClick={() => props.onKey(key)}>
          {key}
        </button>
      ))}
    </div>
  );
}

/** A call in progress: who (caller ID name), how long, and mute, hold, keypad and hang up. */
export function InCall(props: { call: PhoneCall; onClose(): void }) {
  const { live } = useSession();
  const [view, setView] = useState<CallView>(() => props.call.view());
  const [now, setNow] = useState(() => Date.now());
  const [keypad, setKeypad] = useState(false);
  useEffect(() => props.call.onChange(setView), [props.call]);
  useEffect(() => {
    if (view.state !== 'active') return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [view.state]);

  const name = live.nameFor(view.to);
  const status =
    view.state === 'connecting'
      ? 'Calling…'
      : view.state === 'ringing'
        ? 'Ringing…'
        : view.state === 'active'
          ? view.held
            ? 'On hold'
            : elapsed(view.answeredAt ?? now, now)
          : view.endReason
            ? `Call ended: ${view.endReason}`
            : 'Call ended';
  return (
    <div className="call-active" role="region" aria-label="Call in progress">
      <p className="call-active-title">{name ?? formatPhone(view.to)}</p>
      {name && <p className="muted">{formatPhone(view.to)}</p>}
      <p className="call-timer" role="timer" aria-live="polite">
        {status}
      </p>
      {view.state === 'ended' ? (
        <button type="button" className="button" onClick={props.onClose}>
          Close
        </button>
      ) : (
        <>
          <div className="button-row">
            <button
              type="button"
              className="button"
              aria-pressed={view.muted}
              onClick={() => props.call.mute(!view.muted)}
            >
              {view.muted ? 'Unmute' : 'Mute'}
            </button>
            <button
              type="button"
              className="button"
              aria-pressed={view.held}
              disabled={view.state !== 'active'}
              onClick={() => props.call.hold(!view.held)}
            >
              {view.held ? 'Resume' : 'Hold'}
            </button>
            <button
              type="button"
              className="button"
              aria-pressed={keypad}
              disabled={view.state !== 'active'}
              onClick={() => setKeypad(!keypad)}
            >
              Keypad
            </button>
          </div>
          {keypad && <Keypad label="Send tones" onKey={(key) => props.call.dtmf(key)} />}
          <button type="button" className="button danger wide" onClick={() => props.call.hangUp()}>
            Hang up
          </button>
        </>
      )}
    </div>
  );
}
