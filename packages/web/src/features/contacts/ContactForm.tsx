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
  const ids = useId();

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
    setBusy(true);
    setError(null);
    const optional = (v: string) => (v.trim() === '' ? null : v.trim());
    try {
      await props.onSave({
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
      <FormError message={error?.text ?? null} />
      <SaveCancel
        busy={busy}
        saveLabel={c ? 'Save changes' : 'Add contact'}
        onCancel={props.onCancel}
      />
    </form>
  );
}
