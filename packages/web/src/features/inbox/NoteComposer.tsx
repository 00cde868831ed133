import { useId, useState, type FormEvent } from 'react';
import { FormError } from '../../lib/form.tsx';
import { useSession } from '../../lib/session.tsx';

/** The box for an internal note: the team sees it in the thread, the customer never does. */
export function NoteComposer(props: { conversationId: string; onTyping(): void }) {
  const { live } = useSession();
  const [body, setBody] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (body.trim() === '' || busy) return;
    setBusy(true);
    try {
      await live.addNote(props.conversationId, body);
      setBody('');
      setError(null);
    } catch (e) {
      setError(`Not added: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="composer note-composer" onSubmit={submit} aria-label="Add an internal note">
      <div className="composer-box">
        <label htmlFor={`${id}-note`} className="visually-hidden">
          Internal note
        </label>
        <textarea
          id={`${id}-note`}
          value={body}
          rows={2}
          maxLength={4000}
          placeholder="Internal note, seen only by your team. @name to mention"
          onChange={(e) => {
            setBody(e.target.value);
            props.onTyping();
          }}
        />
        <div className="composer-actions">
          <button type="submit" className="button primary" disabled={busy || body.trim() === ''}>
            Add note
          </button>
        </div>
      </div>
      <FormError message={error} />
    </form>
  );
}
