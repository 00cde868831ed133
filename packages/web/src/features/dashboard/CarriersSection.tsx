import { useEffect, useState, type FormEvent } from 'react';
import { Field, FormError } from '../../lib/form.tsx';
import { useSession } from '../../lib/session.tsx';
import type { CarrierConnection, ListOf } from '../../lib/types.ts';
import { useResource } from '../../lib/use-resource.ts';
import { HttpCarrierForm } from './HttpCarrierForm.tsx';
import { SipTrunkForm } from './SipTrunkForm.tsx';

/** How often the connections' live state is read again while the card is open. */
const REFRESH_MS = 2000;

const EMPTY = {
  host: '',
  port: '2775',
  systemId: '',
  password: '',
  window: '10',
  throughput: '0',
  longMessages: 'udh',
  receiptIds: 'dec',
  tls: false,
};

const PILL: Record<string, string> = {
  bound: 'ok-pill',
  up: 'ok-pill',
  failed: 'bad-pill',
};

/** The account's live carrier connections: their state as it is now, and adding, pausing and removing them. */
export function CarriersSection() {
  const { api } = useSession();
  const carriers = useResource(() => api.get<ListOf<CarrierConnection>>('/carriers'), 'carriers');
  const [form, setForm] = useState(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { reload } = carriers;

  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);

  const act = async (what: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await what();
      reload();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const add = (event: FormEvent) => {
    event.preventDefault();
    void act(async () => {
      await api.post('/carriers', {
        type: 'smpp',
        host: form.host.trim(),
        port: Number(form.port),
        systemId: form.systemId.trim(),
        password: form.password,
        window: Number(form.window),
        throughput: Number(form.throughput),
        longMessages: form.longMessages,
        receiptIds: form.receiptIds,
        tls: form.tls,
      });
      setForm(EMPTY);
    });
  };

  const list = carriers.data?.data ?? [];
  return (
    <div className="dashboard-grid">
      <section className="card" aria-labelledby="carriers-title">
        <h2 id="carriers-title">Carrier connections</h2>
        <p className="muted">
          Live texts leave and arrive through these SMPP, Twilio and Telnyx connections. A number
          goes through the connection it was added with, or the first one here. Live calls go
          through SIP trunks.
        </p>
        {carriers.error && <p className="form-error">{carriers.error}</p>}
        <ul className="plain-list" aria-label="Carrier connections">
          {list.map((c) => (
            <li key={c.id} data-carrier={c.id}>
              <span>
                <strong className="mono">{nameOf(c)}</strong>{' '}
                <span className="muted">{detailOf(c)}</span>{' '}
                <span className={`pill ${PILL[c.status] ?? 'muted-pill'}`} data-status={c.status}>
                  {c.status}
                </span>
                {c.lastError && <span className="form-error"> {c.lastError}</span>}
              </span>
              {c.webhookUrls && (
                <span className="muted">
                  Webhooks for the provider: inbound{' '}
                  <code className="mono">{c.webhookUrls.inbound}</code>, status{' '}
                  <code className="mono">{c.webhookUrls.status}</code>
                </span>
              )}
              {c.type === 'sip' ? (
                <span className="muted">Checked with SIP OPTIONS</span>
              ) : (
                <span className="muted">
                  {c.inFlight} in flight · {c.sentLastMinute} sent and {c.receivedLastMinute}{' '}
                  received in the last minute
                </span>
              )}
              <span>
                <button
                  type="button"
                  className="button"
                  disabled={busy}
                  onClick={() =>
                    void act(() => api.post(`/carriers/${c.id}/pause`, { paused: !c.paused }))
                  }
                >
                  {c.paused ? 'Resume' : 'Pause'}
                </button>{' '}
                <button
                  type="button"
                  className="button danger"
                  disabled={busy}
                  onClick={() => {
                    if (confirm(`Remove the connection to ${nameOf(c)}?`)) {
                      void act(() => api.post(`/carriers/${c.id}/remove`));
                    }
                  }}
                >
                  Remove
                </button>
              </span>
            </li>
          ))}
          {carriers.data && list.length === 0 && (
            <li className="muted">No carrier connections: live sends fail as unreachable.</li>
          )}
        </ul>
      </section>
      <form className="card" onSubmit={add} aria-labelledby="carrier-add-title" noValidate>
        <h2 id="carrier-add-title">Add an SMPP connection</h2>
        <Field label="Host">
          <input
            required
            value={form.host}
            onChange={(e) => setForm({ ...form, host: e.target.value })}
          />
        </Field>
        <Field label="Port">
          <input
            inputMode="numeric"
            value={form.port}
            onChange={(e) => setForm({ ...form, port: e.target.value })}
          />
        </Field>
        <Field label="System ID">
          <input
            required
            maxLength={15}
            autoComplete="off"
            value={form.systemId}
            onChange={(e) => setForm({ ...form, systemId: e.target.value })}
          />
        </Field>
        <Field label="Password">
          <input
            type="password"
            required
            maxLength={8}
            autoComplete="new-password"
            value={form.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
          />
        </Field>
        <Field label="Window (requests in flight)">
          <input
            inputMode="numeric"
            value={form.window}
            onChange={(e) => setForm({ ...form, window: e.target.value })}
          />
        </Field>
        <Field label="Messages per second (0: no cap)">
          <input
            inputMode="numeric"
            value={form.throughput}
            onChange={(e) => setForm({ ...form, throughput: e.target.value })}
          />
        </Field>
        <Field label="Long texts">
          <select
            value={form.longMessages}
            onChange={(e) => setForm({ ...form, longMessages: e.target.value })}
          >
            <option value="udh">Concatenated parts (UDH)</option>
            <option value="payload">One message_payload</option>
          </select>
        </Field>
        <Field label="Receipt ids">
          <select
            value={form.receiptIds}
            onChange={(e) => setForm({ ...form, receiptIds: e.target.value })}
          >
            <option value="dec">Decimal</option>
            <option value="hex">Hexadecimal</option>
          </select>
        </Field>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={form.tls}
            onChange={(e) => setForm({ ...form, tls: e.target.checked })}
          />{' '}
          TLS
        </label>
        <FormError message={error} />
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add connection'}
        </button>
      </form>
      <HttpCarrierForm onAdded={reload} />
      <SipTrunkForm onAdded={reload} />
    </div>
  );
}

/** What a connection leads to: the SMSC's address, or the provider's account. */
function nameOf(c: CarrierConnection): string {
  if (c.type === 'smpp' || c.type === 'sip') return `${c.host}:${c.port}`;
  if (c.type === 'twilio') return `Twilio ${c.accountSid}`;
  return `Telnyx ${c.messagingProfileId ?? ''}`.trim();
}

/** What sets a connection apart beside its name: the SMSC's system id, the kind of trunk. */
function detailOf(c: CarrierConnection): string {
  if (c.type === 'smpp') return c.systemId ?? '';
  if (c.type === 'sip')
    return `SIP trunk · ${c.transport}${c.authenticated ? ' · digest login' : ''}`;
  return c.type;
}
