import { useId, useState } from 'react';
import { navigate } from '../../lib/router.tsx';
import { useLive, useSession } from '../../lib/session.tsx';
import type { Conversation } from '../../lib/types.ts';

/** A thread's team controls: who it is assigned to, done or reopen, and mark unread. */
export function TeamBar(props: { conversation: Conversation }) {
  const { live, me } = useSession();
  const { teammates } = useLive();
  const c = props.conversation;
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const act = (action: Promise<void>) =>
    action.then(
      () => setError(null),
      (e: Error) => setError(e.message),
    );

  return (
    <div className="team-bar" role="group" aria-label="Team">
      <label htmlFor={`${id}-assignee`} className="team-bar-label">
        Assignee
      </label>
      <select
        id={`${id}-assignee`}
        value={c.assigneeId ?? ''}
        onChange={(e) => void act(live.assign(c.id, e.target.value === '' ? null : e.target.value))}
      >
        <option value="">Unassigned</option>
        {(teammates ?? []).map((t) => (
          <option key={t.id} value={t.id}>
            {t.id === me.user.id ? `${t.name} (me)` : t.name}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="button small"
        onClick={() => void act(live.setStatus(c.id, c.status === 'done' ? 'open' : 'done'))}
      >
        {c.status === 'done' ? 'Reopen' : 'Mark done'}
      </button>
      <button
        type="button"
        className="button small"
        onClick={() =>
          void act(
            // Back to the list, as in a mail client: an open thread would count as read again.
            live.markUnread(c.id).then(() => navigate('/app/inbox')),
          )
        }
      >
        Mark unread
      </button>
      {c.status === 'done' && <span className="done-tag">Done</span>}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
