import { useState, type FormEvent } from 'react';
import { Field } from '../../lib/form.tsx';
import { useSession } from '../../lib/session.tsx';

// What the carrier forms share: their state, and a submit that posts to /carriers, clears the
// form on success and shows why on failure.

/** A form's fields, how `add` turns them into the body it posts, and the fields it starts over with. */
export function useCarrierForm<T extends object>(
  empty: T,
  props: { onAdded(): void },
  toBody: (form: T) => object,
  afterAdd: (form: T) => T = () => empty,
) {
  const { api } = useSession();
  const [form, setForm] = useState(empty);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<T>) => setForm({ ...form, ...patch });

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post('/carriers', toBody(form));
      setForm(afterAdd(form));
      props.onAdded();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return { form, set, error, busy, onSubmit: (e: FormEvent) => void add(e) };
}

/** A labelled text box; a secret one is masked and never autofilled with a saved password. */
export function TextField(props: {
  label: string;
  value: string;
  onChange(value: string): void;
  required?: boolean;
  optional?: boolean;
  secret?: boolean;
}) {
  return (
    <Field label={props.label} optional={props.optional}>
      <input
        {...(props.secret ? { type: 'password' } : {})}
        required={props.required}
        autoComplete={props.secret ? 'new-password' : 'off'}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </Field>
  );
}
