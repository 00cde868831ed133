import { useState } from 'react';
import { FormError } from '../../lib/form.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { Icon } from '../../lib/icons.tsx';
import { useSession } from '../../lib/session.tsx';
import type { ApiKey, CreatedApiKey, ListOf } from '../../lib/types.ts';
import { useResource } from '../../lib/use-resource.ts';
import { SecretReveal } from './SecretReveal.tsx';

/** API keys: create (secret shown once), list with last use, revoke, and how to rotate. */
export function ApiKeysSection() {
  const { api, mode } = useSession();
  const keys = useResource(() => api.get<ListOf<ApiKey>>('/keys'), mode);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const create = async () => {
    setError(null);
    try {
      setCreated(await api.post<CreatedApiKey>('/keys'));
      keys.reload();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const revoke = async (id: string) => {
    setError(null);
    try {
      await api.post(`/keys/${encodeURIComponent(id)}/revoke`);
      setConfirming(null);
      keys.reload();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const rows = keys.data?.data ?? [];
  return (
    <div className="dashboard-grid">
      <section className="card" aria-labelledby="keys-title">
        <div className="card-header">
          <h2 id="keys-title">API keys</h2>
          <button type="button" className="button primary small" onClick={() => void create()}>
            <Icon name="key" size={16} />
            <span>Create {mode} key</span>
          </button>
        </div>
        {created && (
          <SecretReveal
            title="Your new API key"
            secret={created.secret}
            note="Copy it now and keep it on your server: this is the only time it is shown."
            onDone={() => setCreated(null)}
          />
        )}
        <FormError message={error} />
        {keys.error && <p className="form-error">{keys.error}</p>}
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col" className="hide-phone">
                  Created
                </th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((k) => (
                <tr key={k.id} data-key-id={k.id} className={k.revokedAt ? 'revoked' : undefined}>
                  <td className="mono">{k.hint}</td>
                  <td className="hide-phone">{formatDateTime(k.createdAt)}</td>
                  <td>{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : 'Never'}</td>
                  <td>
                    {k.revokedAt ? (
                      <span className="pill muted-pill">Revoked {formatDateTime(k.revokedAt)}</span>
                    ) : (
                      <span className="pill ok-pill">Active</span>
                    )}
                  </td>
                  <td className="actions">
                    {!k.revokedAt &&
                      (confirming === k.id ? (
                        <span className="confirm" role="group" aria-label={`Revoke ${k.hint}?`}>
                          <button
                            type="button"
                            className="button danger small"
                            onClick={() => void revoke(k.id)}
                          >
                            Revoke now
                          </button>
                          <button
                            type="button"
                            className="button small"
                            onClick={() => setConfirming(null)}
                          >
                            Keep
                          </button>
                        </span>
                      ) : (
                        <button
                          type="button"
                          className="button small"
                          aria-label={`Revoke ${k.hint}`}
                          onClick={() => setConfirming(k.id)}
                        >
                          Revoke
                        </button>
                      ))}
                  </td>
                </tr>
              ))}
              {rows.length === 0 && !keys.loading && (
                <tr>
                  <td colSpan={5} className="muted">
                    No {mode} keys yet.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </section>
      <aside className="card hint-card" aria-labelledby="rotate-title">
        <h2 id="rotate-title">Rotating a key</h2>
        <ol className="steps">
          <li>Create a new key here.</li>
          <li>Deploy it to every server that calls the API.</li>
          <li>Revoke the old key. Revocation is immediate: the next request with it gets 401.</li>
        </ol>
        <p className="muted">
          Keys carry full account access. Keep them on servers, never in a browser, an app or a
          repository. Test keys start with <code>sk_test_</code> and only reach the sandbox.
        </p>
      </aside>
    </div>
  );
}
