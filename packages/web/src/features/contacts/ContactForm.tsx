import type { Contact } from '@switchboard/sdk';
import { useId, useState, type FormEvent } from 'react';
import { ApiRequestError } from '../../lib/api.ts';
import { Field, FormError, SaveCancel } from '../../lib/form.tsx';
import { toE164 } from '../../lib/format.ts';
import type { ContactInput } from '../../lib/live-data.ts';

const FIELDS = [
  { key: 'name', label: 'Name', type: 'text', autoComplete: 'name' },
  { key: 'phone', label: 'Phone', type: 'tel', autoComplete: 'tel' },
  { key: 'email', label: 'Email', type: 'email', autoComplete: 'email' },
  { key: 'company', label: 'Company', type: 'text', autoComplete: 'organization' },
] as const;

type Values = Record<(typeof FIELDS)[number]['key'], string>;

/**
 * Creates or edits a contact. Its name becomes the caller ID of its phone across the inbox, the
 * call history and every teammate's screen as soon as it is saved.
 */
export function ContactForm(props: {
  contact: Contact | null;
  initialPhone?: string | undefined;
  onSave(input: ContactInput & { phone: string }): Promise<void>;
  onCancel(): void;
  /** The other contacts with this number (duplicates take over caller ID: warn first). */
  sharingPhone(phone: string): Contact[];
  /** Saves the form's values onto an existing contact instead of adding a duplicate. */
  onUpdateExisting(existing: Contact, input: ContactInput & { phone: string }): Promise<void>;
  onDelete?(): Promise<void>;
  onMerge?(duplicate: Contact): Promise<void>;
}) {
  const c = props.contact;
  const [values, setValues] = useState<Values>({
    name: c?.name ?? '',
    phone: c?.phone ?? props.initialPhone ?? '',
    email: c?.email ?? '',
    company: c?.company ?? '',
  });
  const [error, setError] = useState<{ param: string | null; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  // A duplicate number asks once: update the existing contact, or add this one anyway.
  const [duplicateOf, setDuplicateOf] = useState<Contact | null>(null);
  const ids = useId();
  const typedPhone = toE164(values.phone);
  const sharing = typedPhone ? props.sharingPhone(typedPhone) : [];

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const phone = toE164(values.phone);
    if (!phone) {
      setError({
        param: 'phone',
        text: 'Enter a phone number, like (415) 555-0123 or +442079460958.',
      });
      return;
    }
    const newNumber = phone !== c?.phone;
    const existing = props.sharingPhone(phone)[0];
    if (newNumber && existing && duplicateOf?.id !== existing.id) {
      setDuplicateOf(existing);
      return;
    }
    await run((input) => props.onSave(input), phone);
  };

  const optional = (v: string) => (v.trim() === '' ? null : v.trim());
  const run = async (
    save: (input: ContactInput & { phone: string }) => Promise<void>,
    phone: string,
  ) => {
    setBusy(true);
    setError(null);
    try {
      await save({
        phone,
        name: optional(values.name),
        email: optional(values.email),
        company: optional(values.company),
      });
    } catch (e) {
      const param = e instanceof ApiRequestError ? (e.param ?? null) : null;
      setError({ param, text: (e as Error).message });
      setBusy(false);
    }
  };

  return (
    <form
      className="card contact-form"
      onSubmit={submit}
      aria-labelledby={`${ids}-title`}
      noValidate
    >
      <h2 id={`${ids}-title`}>{c ? `Edit ${c.name ?? 'contact'}` : 'New contact'}</h2>
      {FIELDS.map((field) => (
        <Field key={field.key} label={field.label} optional={field.key !== 'phone'}>
          <input
            type={field.type}
            name={field.key}
            autoComplete={field.autoComplete}
            required={field.key === 'phone'}
            value={values[field.key]}
            onChange={(e) => setValues({ ...values, [field.key]: e.target.value })}
            aria-invalid={error?.param === field.key ? true : undefined}
            autoFocus={field.key === 'name'}
          />
        </Field>
      ))}
      {duplicateOf && typedPhone && (
        <div className="duplicate-warning" role="alert">
          <p>
            {duplicateOf.name ?? 'Another contact'} already has this number. Two contacts with one
            number: the newest one’s name becomes its caller ID.
          </p>
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() =>
              void run((input) => props.onUpdateExisting(duplicateOf, input), typedPhone)
            }
          >
            Update {duplicateOf.name ?? 'that contact'} instead
          </button>
        </div>
      )}
      {c && props.onMerge && sharing.length > 0 && (
        <div className="duplicate-warning">
          <p>Also has this number:</p>
          <ul className="plain-list">
            {sharing.map((other) => (
              <li key={other.id}>
                <span>{other.name ?? 'No name'}</span>
                <button
                  type="button"
                  className="button"
                  disabled={busy}
                  onClick={() => void props.onMerge?.(other)}
                >
                  Merge {other.name ?? 'it'} into this contact
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      <FormError message={error?.text ?? null} />
      <SaveCancel
        busy={busy}
        saveLabel={duplicateOf ? 'Add anyway' : c ? 'Save changes' : 'Add contact'}
        onCancel={props.onCancel}
      />
      {c && props.onDelete && (
        <button
          type="button"
          className="button danger"
          disabled={busy}
          onClick={() => {
            if (confirm(`Delete ${c.name ?? 'this contact'}? Its number shows without a name.`)) {
              void props.onDelete?.();
            }
          }}
        >
          Delete contact
        </button>
      )}
    </form>
  );
}
