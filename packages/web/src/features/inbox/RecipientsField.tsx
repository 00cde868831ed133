import type { Contact } from '@switchboard/sdk';
import { useId, useState, type KeyboardEvent } from 'react';
import { formatPhone, toE164 } from '../../lib/format.ts';
import { Icon } from '../../lib/icons.tsx';
import { useLive, useSession } from '../../lib/session.tsx';

/** Most recipients of one send (the API's limit). */
export const MAX_RECIPIENTS = 10;

/** A typed recipient as E.164: a number in any usual form, a contact's name, or a suggestion. */
function resolve(text: string, contacts: Contact[]): string | null {
  const direct = toE164(text);
  if (direct) return direct;
  // Suggestions read "Name · (415) 555-0123": the number at the end decides.
  const tail = /(\+?[\d\s().-]{7,})$/.exec(text.trim());
  if (tail) {
    const number = toE164(tail[1]!);
    if (number) return number;
  }
  const lower = text.trim().toLowerCase();
  if (lower === '') return null;
  const exact = contacts.find((c) => c.name?.toLowerCase() === lower);
  if (exact) return exact.phone;
  // A part of a name ("rosa", "garc") picks the one contact it can mean; two people, none.
  const partial = new Set(
    contacts.filter((c) => c.name?.toLowerCase().includes(lower)).map((c) => c.phone),
  );
  return partial.size === 1 ? [...partial][0]! : null;
}

/**
 * The To field: numbers or contact names, each becoming a removable chip on Enter, comma or
 * leaving the field. One chip is a one-to-one text; several make a group.
 */
export function RecipientsField(props: {
  value: string[];
  onChange(next: string[]): void;
  /** Text typed but not yet turned into a chip; the send button commits it. */
  pending: string;
  onPendingChange(text: string): void;
}) {
  const { live } = useSession();
  const { contacts } = useLive();
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  const commit = (): boolean => {
    const text = props.pending.trim().replace(/,$/, '');
    if (text === '') return true;
    const phone = resolve(text, contacts ?? []);
    if (!phone) {
      setError(`“${text}” is not a phone number or the name of one contact.`);
      return false;
    }
    if (props.value.length >= MAX_RECIPIENTS) {
      setError(`A text can go to at most ${MAX_RECIPIENTS} people.`);
      return false;
    }
    setError(null);
    if (!props.value.includes(phone)) props.onChange([...props.value, phone]);
    props.onPendingChange('');
    return true;
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      commit();
    } else if (event.key === 'Backspace' && props.pending === '' && props.value.length > 0) {
      props.onChange(props.value.slice(0, -1));
    }
  };

  return (
    <div className="recipients">
      <label htmlFor={`${id}-to`} className="recipients-label">
        To
      </label>
      <ul className="chips" aria-label="Recipients">
        {props.value.map((phone) => (
          <li key={phone} className="chip">
            <span>{live.label(phone)}</span>
            {live.nameFor(phone) && <span className="chip-sub"> {formatPhone(phone)}</span>}
            <button
              type="button"
              className="chip-remove"
              aria-label={`Remove ${live.label(phone)}`}
              onClick={() => props.onChange(props.value.filter((p) => p !== phone))}
            >
              <Icon name="x" size={14} />
            </button>
          </li>
        ))}
      </ul>
      <input
        id={`${id}-to`}
        className="recipients-input"
        list={`${id}-suggestions`}
        autoComplete="off"
        placeholder={props.value.length === 0 ? 'Name or number, Enter to add' : 'Add another'}
        value={props.pending}
        onChange={(e) => props.onPendingChange(e.target.value)}
        onKeyDown={onKeyDown}
        onBlur={() => commit()}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        autoFocus={props.value.length === 0}
      />
      <datalist id={`${id}-suggestions`}>
        {(contacts ?? [])
          .filter((c) => c.name)
          .map((c) => (
            <option key={c.id} value={`${c.name} · ${formatPhone(c.phone)}`} />
          ))}
      </datalist>
      {error && (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** Exposed for the send button: the chips plus whatever was typed last, or an error text. */
export function recipientsWithPending(
  value: string[],
  pending: string,
  contacts: Contact[],
): string[] | string {
  const text = pending.trim().replace(/,$/, '');
  if (text === '') return value;
  const phone = resolve(text, contacts);
  if (!phone) return `“${text}” is not a phone number or the name of one contact.`;
  return value.includes(phone) ? value : [...value, phone];
}
