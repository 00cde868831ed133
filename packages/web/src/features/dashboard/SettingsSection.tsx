import { useId, useState, type FormEvent } from 'react';
import { Field } from '../../lib/form.tsx';
import { useSession } from '../../lib/session.tsx';

const HELP_MAX = 1000;

/** The HELP reply: what a customer gets back when they text HELP or INFO to any number. */
export function SettingsSection() {
  const { api, me } = useSession();
  const [saved, setSaved] = useState(me.account.helpReply ?? '');
  const [text, setText] = useState(saved);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setStatus(null);
    try {
      const value = text.trim() === '' ? null : text.trim();
      await api.put('/settings/help-reply', { helpReply: value });
      setSaved(value ?? '');
      setText(value ?? '');
      setStatus({
        ok: true,
        text: value ? 'HELP reply saved.' : 'HELP reply reset to the default.',
      });
    } catch (e) {
      setStatus({ ok: false, text: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card narrow-card" onSubmit={save} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>HELP reply</h2>
      <p className="muted" id={`${id}-hint`}>
        Carriers require an answer to HELP and INFO. Say who you are and how to reach you; leave it
        empty for the default. STOP and START confirmations are sent automatically.
      </p>
      <Field label="Reply text">
        <textarea
          rows={4}
          maxLength={HELP_MAX}
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-describedby={`${id}-hint ${id}-count`}
          placeholder="Acme Plumbing: call (415) 555-0100 or visit acme.example. Reply STOP to opt out."
        />
      </Field>
      <p className="muted small" id={`${id}-count`}>
        {text.length} / {HELP_MAX}
      </p>
      {status && (
        <p className={status.ok ? 'form-ok' : 'form-error'} role={status.ok ? 'status' : 'alert'}>
          {status.text}
        </p>
      )}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={busy || text === saved}>
          {busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}
