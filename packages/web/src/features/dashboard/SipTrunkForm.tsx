import { Field, FormError } from '../../lib/form.tsx';
import { TextField, useCarrierForm } from './carrier-form.tsx';

const EMPTY = {
  host: '',
  port: '5060',
  transport: 'udp' as 'udp' | 'tcp' | 'tls',
  username: '',
  password: '',
};

/** Empty login fields are left out: the trunk then trusts its host's addresses alone. */
function toBody(form: typeof EMPTY) {
  return {
    type: 'sip',
    host: form.host.trim(),
    port: Number(form.port),
    transport: form.transport,
    ...(form.username.trim() ? { username: form.username.trim() } : {}),
    ...(form.password ? { password: form.password } : {}),
  };
}

/** Adds a SIP trunk for live calls; its digest login, when it has one, goes in and never comes out. */
export function SipTrunkForm(props: { onAdded(): void }) {
  const { form, set, error, busy, onSubmit } = useCarrierForm(EMPTY, props, toBody);

  return (
    <form className="card" onSubmit={onSubmit} aria-labelledby="sip-trunk-title" noValidate>
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
      <TextField
        label="Username"
        optional
        value={form.username}
        onChange={(username) => set({ username })}
      />
      <TextField
        label="Password"
        optional
        secret
        value={form.password}
        onChange={(password) => set({ password })}
      />
      <FormError message={error} />
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? 'Adding…' : 'Add SIP trunk'}
      </button>
    </form>
  );
}
