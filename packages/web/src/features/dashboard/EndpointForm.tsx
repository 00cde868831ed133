import { WEBHOOK_EVENT_TYPES, type WebhookEndpoint, type WebhookEventType } from '@switchboard/sdk';
import { useId, useState, type FormEvent } from 'react';
import { Field, FormError, SaveCancel } from '../../lib/form.tsx';

/** What the form submits: the fields of a new endpoint, or the changes to one. */
export interface EndpointInput {
  url: string;
  events: WebhookEventType[];
  description: string | null;
}

/** Creates or edits a webhook endpoint: its URL, the events it receives, a note. */
export function EndpointForm(props: {
  endpoint: WebhookEndpoint | null;
  onSave(input: EndpointInput): Promise<void>;
  onCancel(): void;
}) {
  const e = props.endpoint;
  const [url, setUrl] = useState(e?.url ?? '');
  const [description, setDescription] = useState(e?.description ?? '');
  const [events, setEvents] = useState<WebhookEventType[]>(
    e?.events ?? ['message.received', 'message.delivered', 'message.failed'],
  );
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (events.length === 0) {
      setError('Pick at least one event.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await props.onSave({ url: url.trim(), events, description: description.trim() || null });
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };

  const toggle = (type: WebhookEventType) =>
    setEvents((list) => (list.includes(type) ? list.filter((t) => t !== type) : [...list, type]));

  return (
    <form className="endpoint-form" onSubmit={submit} aria-labelledby={`${ids}-title`}>
      <h3 id={`${ids}-title`}>{e ? 'Edit endpoint' : 'Add an endpoint'}</h3>
      <Field label="Endpoint URL">
        <input
          type="url"
          required
          placeholder="https://example.com/webhooks/switchboard"
          value={url}
          onChange={(ev) => setUrl(ev.target.value)}
          autoFocus
        />
      </Field>
      <Field label="Description" optional>
        <input type="text" value={description} onChange={(ev) => setDescription(ev.target.value)} />
      </Field>
      <fieldset className="field checkboxes">
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label key={type} className="checkbox">
            <input type="checkbox" checked={events.includes(type)} onChange={() => toggle(type)} />
            <code>{type}</code>
          </label>
        ))}
      </fieldset>
      <FormError message={error} />
      <SaveCancel
        busy={busy}
        saveLabel={e ? 'Save endpoint' : 'Add endpoint'}
        onCancel={props.onCancel}
      />
    </form>
  );
}
