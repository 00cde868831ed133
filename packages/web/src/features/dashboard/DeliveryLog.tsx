import type { WebhookDelivery } from '@switchboard/sdk';
import { useState } from 'react';
import { formatDateTime } from '../../lib/format.ts';
import { useSession } from '../../lib/session.tsx';
import type { ListOf } from '../../lib/types.ts';
import { useResource } from '../../lib/use-resource.ts';

const STATUS_LABEL: Record<WebhookDelivery['status'], string> = {
  pending: 'Retrying',
  succeeded: 'Delivered',
  failed: 'Failed',
};

/** An endpoint's recent deliveries, each with every attempt, and a redeliver button. */
export function DeliveryLog(props: { endpointId: string }) {
  const { api } = useSession();
  const path = `/webhook-endpoints/${encodeURIComponent(props.endpointId)}`;
  const log = useResource(
    () => api.get<ListOf<WebhookDelivery>>(`${path}/deliveries`),
    props.endpointId,
  );
  const [notice, setNotice] = useState<string | null>(null);

  const redeliver = async (delivery: WebhookDelivery) => {
    try {
      await api.post(`${path}/deliveries/${encodeURIComponent(delivery.id)}/retry`);
      setNotice(`Redelivery of ${delivery.eventType} queued.`);
      // The worker picks it up within moments; show the new attempt when it lands.
      setTimeout(log.reload, 1000);
    } catch (e) {
      setNotice((e as Error).message);
    }
  };

  return (
    <div className="delivery-log">
      <div className="card-header">
        <h4>Delivery log</h4>
        <button type="button" className="button small" onClick={log.reload}>
          Refresh
        </button>
      </div>
      <p role="status" className="muted">
        {notice}
      </p>
      {log.error && <p className="form-error">{log.error}</p>}
      {log.data && log.data.data.length === 0 && <p className="muted">No deliveries yet.</p>}
      <ul className="deliveries" aria-label="Deliveries">
        {log.data?.data.map((d) => (
          <li key={d.id} className={`delivery ${d.status}`} data-delivery-id={d.id}>
            <div className="delivery-head">
              <code>{d.eventType}</code>
              <span
                className={`pill ${d.status === 'succeeded' ? 'ok-pill' : d.status === 'failed' ? 'bad-pill' : 'muted-pill'}`}
              >
                {STATUS_LABEL[d.status]}
              </span>
              <span className="muted">{formatDateTime(d.createdAt)}</span>
              <button
                type="button"
                className="button small"
                aria-label={`Redeliver ${d.eventType} ${d.eventId}`}
                onClick={() => void redeliver(d)}
              >
                Redeliver
              </button>
            </div>
            <table className="attempts">
              <caption className="visually-hidden">Attempts for {d.eventId}</caption>
              <thead>
                <tr>
                  <th scope="col">Attempt</th>
                  <th scope="col">Time</th>
                  <th scope="col">Result</th>
                  <th scope="col">Duration</th>
                </tr>
              </thead>
              <tbody>
                {d.attempts.map((a, i) => (
                  <tr key={a.attemptedAt + String(i)}>
                    <td>{i + 1}</td>
                    <td>{formatDateTime(a.attemptedAt)}</td>
                    <td>
                      {a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? 'No answer')}
                    </td>
                    <td>{a.durationMs} ms</td>
                  </tr>
                ))}
                {d.attempts.length === 0 && (
                  <tr>
                    <td colSpan={4} className="muted">
                      Not attempted yet
                      {d.nextAttemptAt ? ` · next at ${formatDateTime(d.nextAttemptAt)}` : ''}
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </li>
        ))}
      </ul>
    </div>
  );
}
