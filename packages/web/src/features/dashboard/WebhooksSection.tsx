import type { WebhookEndpoint } from '@switchboard/sdk';
import { useState } from 'react';
import { FormError } from '../../lib/form.tsx';
import { Icon } from '../../lib/icons.tsx';
import { useSession } from '../../lib/session.tsx';
import type { ListOf } from '../../lib/types.ts';
import { useResource } from '../../lib/use-resource.ts';
import { DeliveryLog } from './DeliveryLog.tsx';
import { EndpointForm, type EndpointInput } from './EndpointForm.tsx';
import { SecretReveal } from './SecretReveal.tsx';

/** Why an endpoint is off, in words (the API's `disabledReason` codes). */
function disabledBecause(reason: string | null): string {
  switch (reason) {
    case 'disabled_by_user':
      return 'Disabled by a teammate';
    case 'endpoint_gone_410':
      return 'Disabled: the endpoint answered 410 Gone';
    case 'failing_for_5_days':
      return 'Disabled: every delivery failed for 5 days';
    default:
      return reason ? `Disabled: ${reason}` : 'Disabled';
  }
}

/** Webhook endpoints: add, edit, disable, rotate the secret, and read the delivery log. */
export function WebhooksSection() {
  const { api, mode } = useSession();
  const endpoints = useResource(() => api.get<ListOf<WebhookEndpoint>>('/webhook-endpoints'), mode);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);

  const create = async (input: EndpointInput) => {
    const made = await api.post<WebhookEndpoint>('/webhook-endpoints', input);
    setAdding(false);
    if (made.secret) setSecret({ title: `Signing secret for ${made.url}`, value: made.secret });
    endpoints.reload();
  };

  const rows = endpoints.data?.data ?? [];
  return (
    <section className="card" aria-labelledby="webhooks-title">
      <div className="card-header">
        <h2 id="webhooks-title">Webhook endpoints</h2>
        {!adding && (
          <button type="button" className="button primary small" onClick={() => setAdding(true)}>
            <Icon name="plus" size={16} />
            <span>Add endpoint</span>
          </button>
        )}
      </div>
      <p className="muted">
        Each delivery is signed with the endpoint’s secret (<code>X-Service-Signature</code> and the
        Standard Webhooks headers) and retried for about three days until it gets a 2xx.
      </p>
      {secret && (
        <SecretReveal
          title={secret.title}
          secret={secret.value}
          note="Store it with your receiver to verify signatures. It is shown only now."
          onDone={() => setSecret(null)}
        />
      )}
      {adding && <EndpointForm endpoint={null} onSave={create} onCancel={() => setAdding(false)} />}
      {endpoints.error && <p className="form-error">{endpoints.error}</p>}
      {rows.length === 0 && !endpoints.loading && !adding && (
        <p className="list-note">No endpoints in {mode} mode yet.</p>
      )}
      <ul className="endpoints" aria-label="Endpoints">
        {rows.map((e) => (
          <EndpointItem
            key={e.id}
            endpoint={e}
            onChanged={endpoints.reload}
            onSecret={(value) => setSecret({ title: `New signing secret for ${e.url}`, value })}
          />
        ))}
      </ul>
    </section>
  );
}

function EndpointItem(props: {
  endpoint: WebhookEndpoint;
  onChanged(): void;
  onSecret(secret: string): void;
}) {
  const { api } = useSession();
  const e = props.endpoint;
  const path = `/webhook-endpoints/${encodeURIComponent(e.id)}`;
  const [editing, setEditing] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const act = async (action: () => Promise<void>) => {
    setError(null);
    try {
      await action();
      props.onChanged();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const save = async (input: EndpointInput) => {
    await api.post(path, input);
    setEditing(false);
    props.onChanged();
  };

  return (
    <li className={e.enabled ? 'endpoint' : 'endpoint disabled'} data-endpoint-id={e.id}>
      <div className="endpoint-head">
        <div>
          <p className="endpoint-url mono">{e.url}</p>
          {e.description && <p className="muted">{e.description}</p>}
          <p className="endpoint-events">
            {e.events.map((t) => (
              <code key={t} className="pill muted-pill">
                {t}
              </code>
            ))}
          </p>
        </div>
        <span className={`pill ${e.enabled ? 'ok-pill' : 'bad-pill'}`}>
          {e.enabled ? 'Enabled' : disabledBecause(e.disabledReason)}
        </span>
      </div>
      {editing ? (
        <EndpointForm endpoint={e} onSave={save} onCancel={() => setEditing(false)} />
      ) : (
        <div className="button-row">
          <button type="button" className="button small" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button
            type="button"
            className="button small"
            onClick={() => void act(() => api.post(path, { enabled: !e.enabled }))}
          >
            {e.enabled ? 'Disable' : 'Enable'}
          </button>
          <button
            type="button"
            className="button small"
            onClick={() =>
              void act(async () => {
                const rotated = await api.post<WebhookEndpoint>(`${path}/rotate-secret`);
                if (rotated.secret) props.onSecret(rotated.secret);
              })
            }
          >
            Rotate secret
          </button>
          <button
            type="button"
            className="button small"
            aria-expanded={showLog}
            onClick={() => setShowLog((s) => !s)}
          >
            {showLog ? 'Hide delivery log' : 'Delivery log'}
          </button>
        </div>
      )}
      <FormError message={error} />
      {showLog && <DeliveryLog endpointId={e.id} />}
    </li>
  );
}
