import type { ReactNode } from 'react';
import { Icon } from './icons.tsx';

// The markup every form of the app repeats, in one place so fields, errors and buttons look and
// read the same everywhere (the label wraps its control, so no id is needed to link them).

/** A labelled form control: its caption above, marked "(optional)" when it may stay empty. */
export function Field(props: { label: ReactNode; optional?: boolean; children: ReactNode }) {
  return (
    <label className="field">
      <span>
        {props.label}
        {props.optional && <span className="optional"> (optional)</span>}
      </span>
      {props.children}
    </label>
  );
}

/** Why the last submit failed, announced at once; nothing while there is no error. */
export function FormError(props: { message: string | null }) {
  if (!props.message) return null;
  return (
    <p className="form-error" role="alert">
      {props.message}
    </p>
  );
}

/** The save and cancel buttons of an editing form; save reads "Saving…" while busy. */
export function SaveCancel(props: { busy: boolean; saveLabel: string; onCancel(): void }) {
  return (
    <div className="button-row">
      <button type="submit" className="button primary" disabled={props.busy}>
        {props.busy ? 'Saving…' : props.saveLabel}
      </button>
      <button type="button" className="button" onClick={props.onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** A search box with its icon; `label` names it for screen readers, the placeholder shows. */
export function SearchField(props: {
  label: string;
  placeholder: string;
  value: string;
  onChange(value: string): void;
  wide?: boolean;
}) {
  return (
    <label className={props.wide ? 'search wide' : 'search'}>
      <Icon name="search" size={16} />
      <span className="visually-hidden">{props.label}</span>
      <input
        type="search"
        placeholder={props.placeholder}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </label>
  );
}
