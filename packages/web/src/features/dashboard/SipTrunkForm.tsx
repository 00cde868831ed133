import { useState, type FormEvent } from 'react';
import { Field, FormError } from '../../lib/form.tsx';
import { useSession } from '../../lib/session.tsx';

const EMPTY = {
  host: '',
  port: '5060',
  transport: 'udp' as 'udp' | 'tcp' | 'tls',
  username: '',
  password: '',
};

/** Adds a SIP trunk for live calls; its digest login, when it has one, goes in and never comes out. */
export function SipTrunkForm(props: { onAdded(): void }) {
  const { api } = useSession();
  const [form, setForm] = useState(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<typeof EMPTY>) => setForm({ ...form, ...patch });

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // Empty login fields are left out: the trunk then trusts its host's addresses alone.
      await api.post('/carriers', {
        type: 'sip',
        host: form.host.trim(),
        port: Number(form.port),
        transport: form.transport,
        ...(form.username.trim() ? { username: form.username.trim() } : {}),
        ...(form.password ? { password: form.password } : {}),
      });
      setForm(EMPTY);
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
      aria-labelledby="sip-trunk-title"
      noValidate
    >
      <h2 id="sip-trunk-title">Add a SIP trunk</h2>
      <Field label="Host">
        <input required value={form.host} onChange={(e) => set({ host: e.target.value })} />
      </Field>
      <Field label="Port">
        <input
          inputMode="numeric"
          value={form.port}
          onChange={(e) => set({ port: e.target.value })}
        />
      </Field>
      <Field label="Transport">
        <select
          value={form.transport}
          onChange={(e) => set({ transport: e.target.value as typeof EMPTY.transport })}
        >
          <option value="udp">UDP</option>
          <option value="tcp">TCP</option>
          <option value="tls">TLS</option>
        </select>
      </Field>
      <Field label="Username" optional>
        <input
          autoComplete="off"
          value={form.username}
          onChange={(e) => set({ username: e.target.value })}
        />
      </Field>
      <Field label="Password" optional>
        <input
          type="password"
          autoComplete="new-password"
          value={form.password}
          onChange={(e) => set({ password: e.target.value })}
        />
      </Field>
      <FormError message={error} />
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? 'Adding…' : 'Add SIP trunk'}
      </button>
    </form>
  );
}
