import { useState, type FormEvent } from 'react';
import { Field, FormError } from '../../lib/form.tsx';
import { useSession } from '../../lib/session.tsx';

const EMPTY = {
  type: 'twilio' as 'twilio' | 'telnyx',
  accountSid: '',
  authToken: '',
  messagingServiceSid: '',
  apiKey: '',
  publicKey: '',
  messagingProfileId: '',
};

/** Adds a Twilio or Telnyx connection; its credentials go in and never come out. */
export function HttpCarrierForm(props: { onAdded(): void }) {
  const { api } = useSession();
  const [form, setForm] = useState(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<typeof EMPTY>) => setForm({ ...form, ...patch });
  const optional = (value: string) => (value.trim() ? value.trim() : undefined);

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post(
        '/carriers',
        form.type === 'twilio'
          ? {
              type: 'twilio',
              accountSid: form.accountSid.trim(),
              authToken: form.authToken,
              messagingServiceSid: optional(form.messagingServiceSid),
            }
          : {
              type: 'telnyx',
              apiKey: form.apiKey,
              publicKey: form.publicKey.trim(),
              messagingProfileId: optional(form.messagingProfileId),
            },
      );
      setForm({ ...EMPTY, type: form.type });
      props.onAdded();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="card"
      onSubmit={(e) => void add(e)}
      aria-labelledby="http-carrier-title"
      noValidate
    >
      <h2 id="http-carrier-title">Add a Twilio or Telnyx connection</h2>
      <Field label="Provider">
        <select
          value={form.type}
          onChange={(e) => set({ type: e.target.value as 'twilio' | 'telnyx' })}
        >
          <option value="twilio">Twilio</option>
          <option value="telnyx">Telnyx</option>
        </select>
      </Field>
      {form.type === 'twilio' ? (
        <>
          <Field label="Account SID">
            <input
              required
              autoComplete="off"
              value={form.accountSid}
              onChange={(e) => set({ accountSid: e.target.value })}
            />
          </Field>
          <Field label="Auth token">
            <input
              type="password"
              required
              autoComplete="new-password"
              value={form.authToken}
              onChange={(e) => set({ authToken: e.target.value })}
            />
          </Field>
          <Field label="Messaging Service SID" optional>
            <input
              autoComplete="off"
              value={form.messagingServiceSid}
              onChange={(e) => set({ messagingServiceSid: e.target.value })}
            />
          </Field>
        </>
      ) : (
        <>
          <Field label="API key">
            <input
              type="password"
              required
              autoComplete="new-password"
              value={form.apiKey}
              onChange={(e) => set({ apiKey: e.target.value })}
            />
          </Field>
          <Field label="Public key">
            <input
              required
              autoComplete="off"
              value={form.publicKey}
              onChange={(e) => set({ publicKey: e.target.value })}
            />
          </Field>
          <Field label="Messaging profile ID" optional>
            <input
              autoComplete="off"
              value={form.messagingProfileId}
              onChange={(e) => set({ messagingProfileId: e.target.value })}
            />
          </Field>
        </>
      )}
      <FormError message={error} />
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? 'Adding…' : `Add ${form.type === 'twilio' ? 'Twilio' : 'Telnyx'} connection`}
      </button>
    </form>
  );
}
