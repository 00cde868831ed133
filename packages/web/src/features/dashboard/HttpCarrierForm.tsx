import { Field, FormError } from '../../lib/form.tsx';
import { TextField, useCarrierForm } from './carrier-form.tsx';

const EMPTY = {
  type: 'twilio' as 'twilio' | 'telnyx',
  accountSid: '',
  authToken: '',
  messagingServiceSid: '',
  apiKey: '',
  publicKey: '',
  messagingProfileId: '',
};

const optional = (value: string) => (value.trim() ? value.trim() : undefined);

/** The body each provider takes: only its own fields, trimmed where a space cannot belong. */
function toBody(form: typeof EMPTY) {
  return form.type === 'twilio'
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
      };
}

/** Adds a Twilio or Telnyx connection; its credentials go in and never come out. */
export function HttpCarrierForm(props: { onAdded(): void }) {
  const { form, set, error, busy, onSubmit } = useCarrierForm(EMPTY, props, toBody, (added) => ({
    ...EMPTY,
    type: added.type,
  }));

  return (
    <form className="card" onSubmit={onSubmit} aria-labelledby="http-carrier-title" noValidate>
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
          <TextField
            label="Account SID"
            required
            value={form.accountSid}
            onChange={(accountSid) => set({ accountSid })}
          />
          <TextField
            label="Auth token"
            secret
            required
            value={form.authToken}
            onChange={(authToken) => set({ authToken })}
          />
          <TextField
            label="Messaging Service SID"
            optional
            value={form.messagingServiceSid}
            onChange={(messagingServiceSid) => set({ messagingServiceSid })}
          />
        </>
      ) : (
        <>
          <TextField
            label="API key"
            secret
            required
            value={form.apiKey}
            onChange={(apiKey) => set({ apiKey })}
          />
          <TextField
            label="Public key"
            required
            value={form.publicKey}
            onChange={(publicKey) => set({ publicKey })}
          />
          <TextField
            label="Messaging profile ID"
            optional
            value={form.messagingProfileId}
            onChange={(messagingProfileId) => set({ messagingProfileId })}
          />
        </>
      )}
      <FormError message={error} />
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? 'Adding…' : `Add ${form.type === 'twilio' ? 'Twilio' : 'Telnyx'} connection`}
      </button>
    </form>
  );
}
