import { useId, useState } from 'react';

/**
 * A secret shown exactly once (a new API key, a webhook signing secret), with a copy button and
 * a plain warning, until the owner dismisses it.
 */
export function SecretReveal(props: {
  title: string;
  secret: string;
  note: string;
  onDone(): void;
}) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied(true);
    } catch {
      // Clipboard access can be refused; the field is selectable by hand.
      (document.getElementById(id) as HTMLInputElement | null)?.select();
    }
  };
  return (
    <div className="secret-reveal" role="region" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{props.title}</h3>
      <p>{props.note}</p>
      <div className="secret-row">
        <label htmlFor={id} className="visually-hidden">
          {props.title}
        </label>
        <input
          id={id}
          className="mono"
          readOnly
          value={props.secret}
          onFocus={(e) => e.currentTarget.select()}
          data-secret=""
        />
        <button type="button" className="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <button type="button" className="button primary small" onClick={props.onDone}>
        I’ve saved it
      </button>
    </div>
  );
}
