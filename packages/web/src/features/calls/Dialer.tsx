import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Field } from '../../lib/form.tsx';
import { formatPhone, toE164 } from '../../lib/format.ts';
import { Icon } from '../../lib/icons.tsx';
import type { PhoneCall } from '../../lib/phone.ts';
import { useSession } from '../../lib/session.tsx';
import { InCall, Keypad } from './InCall.tsx';

/**
 * The history state that opens the dialer pre-addressed (a deep link, "Call back"); `from`, the
 * line to call from (a thread's, a call's), when it is one of the account's.
 */
export interface DialState {
  /** `nonce` makes a repeated request (call back the same number twice) open a fresh prompt. */
  dial: { to: string; autoDial: boolean; nonce?: number; from?: string };
}

/** Reads a {@link DialState} from history state, or null. */
export function dialOf(state: unknown): DialState['dial'] | null {
  const dial = (state as Partial<DialState> | null)?.dial;
  return dial && typeof dial.to === 'string' ? dial : null;
}

/** Hands the number to the device's phone app; browsers without a tel: handler ignore it. */
function handOff(to: string): void {
  try {
    window.location.assign(`tel:${to}`);
  } catch {
    // Nothing to do: the calling card still shows the number to dial.
  }
}

type Stage =
  | { kind: 'idle' }
  | { kind: 'confirm'; to: string }
  | { kind: 'calling'; to: string }
  | { kind: 'in-call'; call: PhoneCall };

/**
 * The dialer. A pre-addressed number asks for confirmation first (spec 4.6: a link never dials
 * by itself) unless the link said `ad=1`. A call goes through Switchboard's SIP server from the
 * default line; where this server has no voice, the number goes to the device's phone app
 * (`tel:`).
 */
export function Dialer(props: { request: DialState['dial'] | null }) {
  const { live, api, numbers } = useSession();
  const speaker = useRef<HTMLAudioElement>(null);
  const [number, setNumber] = useState(props.request?.to ?? '');
  const [error, setError] = useState<string | null>(null);
  const [stage, setStage] = useState<Stage>(() =>
    props.request && !props.request.autoDial
      ? { kind: 'confirm', to: props.request.to }
      : { kind: 'idle' },
  );

  const dial = (to: string) => {
    setError(null);
    setStage({ kind: 'calling', to });
    const asked = props.request?.from;
    const from = asked && numbers.includes(asked) ? asked : numbers[0];
    if (!from || !speaker.current) {
      handOff(to);
      return;
    }
    const audio = speaker.current;
    // JsSIP is most of the app's weight: loaded when the first call is placed, not at start.
    import('../../lib/phone.ts')
      .then(({ placeCall }) => placeCall(api, from, to, audio))
      .then(
        (call) => setStage({ kind: 'in-call', call }),
        (failure: unknown) => {
          if ((failure as { kind?: string } | null)?.kind === 'unavailable') {
            handOff(to);
            return;
          }
          setStage({ kind: 'idle' });
          setError(failure instanceof Error ? failure.message : String(failure));
        },
      );
  };
  const confirmButton = useRef<HTMLButtonElement>(null);
  const ids = useId();

  useEffect(() => {
    if (stage.kind === 'confirm') confirmButton.current?.focus();
  }, [stage.kind]);

  const dialed = useRef(false);
  useEffect(() => {
    // ad=1: the link asked to dial at once, without the prompt (once, however often it renders).
    if (props.request?.autoDial && !dialed.current) {
      dialed.current = true;
      dial(props.request.to);
    }
    // Only a new request dials.
  }, [props.request]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const to = toE164(number);
    if (!to) {
      setError('Enter a phone number, like (415) 555-0123 or +44 20 7946 0958.');
      return;
    }
    dial(to);
  };

  return (
    <section className="card dialer" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Dialer</h2>
      <audio ref={speaker} autoPlay hidden />
      {stage.kind === 'confirm' ? (
        <div
          className="call-prompt"
          role="alertdialog"
          aria-labelledby={`${ids}-ask`}
          // Escape is Cancel, as in every dialog.
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              setStage({ kind: 'idle' });
            }
          }}
        >
          <p id={`${ids}-ask`}>
            Call <strong>{live.label(stage.to)}</strong>
            {live.nameFor(stage.to) ? ` at ${formatPhone(stage.to)}` : ''}?
          </p>
          <div className="button-row">
            <button
              ref={confirmButton}
              type="button"
              className="button primary"
              onClick={() => dial(stage.to)}
            >
              <Icon name="phone" size={16} />
              <span>Call</span>
            </button>
            <button type="button" className="button" onClick={() => setStage({ kind: 'idle' })}>
              Cancel
            </button>
          </div>
        </div>
      ) : stage.kind === 'in-call' ? (
        <InCall call={stage.call} onClose={() => setStage({ kind: 'idle' })} />
      ) : stage.kind === 'calling' ? (
        <div className="call-active" role="status">
          <p className="call-active-title">Calling {live.label(stage.to)}…</p>
          <p className="muted">
            {formatPhone(stage.to)} · on your phone app.{' '}
            <a href={`tel:${stage.to}`}>Open it again</a>
          </p>
          <button
            type="button"
            className="button danger"
            onClick={() => setStage({ kind: 'idle' })}
          >
            End
          </button>
        </div>
      ) : (
        <form onSubmit={submit} className="dialer-form" noValidate>
          <Field label="Number">
            <input
              type="tel"
              inputMode="tel"
              autoComplete="tel"
              value={number}
              onChange={(e) => setNumber(e.target.value)}
              placeholder="(415) 555-0123"
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${ids}-error` : undefined}
            />
          </Field>
          {error && (
            <p className="field-error" id={`${ids}-error`} role="alert">
              {error}
            </p>
          )}
          <Keypad label="Dial pad" onKey={(key) => setNumber((n) => n + key)} />
          <button type="submit" className="button primary wide">
            <Icon name="phone" size={16} />
            <span>Call</span>
          </button>
        </form>
      )}
    </section>
  );
}
