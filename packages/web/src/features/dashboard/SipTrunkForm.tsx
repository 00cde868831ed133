import { Field, FormError } from '../../lib/form.tsx';
import { TextField, useCarrierForm } from './carrier-form.tsx';

const EMPTY = {
  host: '',
  port: '',
  transport: 'udp' as 'udp' | 'tcp' | 'tls',
  username: '',
  password: '',
};

/** SIP's port, or SIP over TLS's: what the service takes when none is given. */
const DEFAULT_PORT = { udp: '5060', tcp: '5060', tls: '5061' };

/** A number where it is one; as typed otherwise, for the service to refuse naming it. */
const portOf = (typed: string) => (/^\d+$/.test(typed) ? Number(typed) : typed);

/**
 * Empty login fields are left out: the trunk then trusts its host's addresses alone. An
 * empty port is left out too, so the service picks the transport's.
 */
function toBody(form: typeof EMPTY) {
  return {
    type: 'sip',
    host: form.host.trim(),
    ...(form.port.trim() ? { port: portOf(form.port.trim()) } : {}),
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
          placeholder={DEFAULT_PORT[form.transport]}
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
