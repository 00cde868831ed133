import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Field } from '../../lib/form.tsx';
import { formatPhone, toE164 } from '../../lib/format.ts';
import { Icon } from '../../lib/icons.tsx';
import { useSession } from '../../lib/session.tsx';

/** The history state that opens the dialer pre-addressed (a deep link, "Call back"). */
export interface DialState {
  /** `nonce` makes a repeated request (call back the same number twice) open a fresh prompt. */
  dial: { to: string; autoDial: boolean; nonce?: number };
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

type Stage = { kind: 'idle' } | { kind: 'confirm'; to: string } | { kind: 'calling'; to: string };

/**
 * The dialer. A pre-addressed number asks for confirmation first (spec 4.6: a link never dials
 * by itself) unless the link said `ad=1`. Voice runs on the device: placing the call hands the
 * number to its phone app through a `tel:` link.
 */
export function Dialer(props: { request: DialState['dial'] | null }) {
  const { live } = useSession();
  const [number, setNumber] = useState(props.request?.to ?? '');
  const [error, setError] = useState<string | null>(null);
  const [stage, setStage] = useState<Stage>(() => {
    if (!props.request) return { kind: 'idle' };
    return props.request.autoDial
      ? { kind: 'calling', to: props.request.to }
      : { kind: 'confirm', to: props.request.to };
  });
  const confirmButton = useRef<HTMLAnchorElement>(null);
  const ids = useId();

  useEffect(() => {
    if (stage.kind === 'confirm') confirmButton.current?.focus();
  }, [stage.kind]);

  const dialed = useRef(false);
  useEffect(() => {
    // ad=1: the link asked to dial at once, without the prompt (once, however often it renders).
    if (props.request?.autoDial && !dialed.current) {
      dialed.current = true;
      handOff(props.request.to);
    }
  }, [props.request]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const to = toE164(number);
    if (!to) {
      setError('Enter a phone number, like (415) 555-0123 or +44 20 7946 0958.');
      return;
    }
    setError(null);
    setStage({ kind: 'calling', to });
    handOff(to);
  };

  return (
    <section className="card dialer" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Dialer</h2>
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
            <a
              ref={confirmButton}
              className="button primary"
              href={`tel:${stage.to}`}
              onClick={() => setStage({ kind: 'calling', to: stage.to })}
            >
              <Icon name="phone" size={16} />
              <span>Call</span>
            </a>
            <button type="button" className="button" onClick={() => setStage({ kind: 'idle' })}>
              Cancel
            </button>
          </div>
        </div>
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
          <button type="submit" className="button primary wide">
            <Icon name="phone" size={16} />
            <span>Call</span>
          </button>
        </form>
      )}
    </section>
  );
}
