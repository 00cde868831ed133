import { useState, type FormEvent } from 'react';
import { formatDateTime } from '../../lib/format.ts';
import { useSession } from '../../lib/session.tsx';
import type { Role, TeamMember } from '../../lib/types.ts';

const MIN_PASSWORD = 8;

/**
 * One teammate in the owners' Team tab: role, disable/enable, password reset and removal.
 * Each change ends the teammate's sessions where it should (docs/behaviour.md#team).
 */
export function TeammateRow({ member, onChanged }: { member: TeamMember; onChanged: () => void }) {
  const { api, me } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [resetting, setResetting] = useState(false);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const self = member.id === me.user.id;

  const run = async (action: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await action();
      setNotice(done);
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const patch = (body: object, done: string) =>
    run(() => api.patch<TeamMember>(`/team/${member.id}`, body), done);
  const reset = async (event: FormEvent) => {
    event.preventDefault();
    if (password.length < MIN_PASSWORD) {
      setError(`The password needs at least ${MIN_PASSWORD} characters.`);
      return;
    }
    await patch({ password }, `${member.name} was signed out; share the new password privately.`);
    setPassword('');
    setResetting(false);
  };
  const remove = () => {
    if (!confirm(`Remove ${member.name} (${member.email})? They are signed out at once.`)) return;
    void run(() => api.del(`/team/${member.id}`), `${member.name} was removed.`);
  };

  return (
    <li className="teammate">
      <span>
        <strong>{member.name}</strong> <span className="muted">{member.email}</span>
        {self && <span className="muted"> (you)</span>}
        {member.disabled && <span className="pill muted-pill">disabled</span>}
      </span>
      <span className="muted">since {formatDateTime(member.createdAt)}</span>
      {self ? (
        <span className={`pill ${member.role === 'owner' ? 'ok-pill' : 'muted-pill'}`}>
          {member.role}
        </span>
      ) : (
        <span className="teammate-actions">
          <select
            aria-label={`Role of ${member.name}`}
            value={member.role}
            disabled={busy}
            onChange={(e) =>
              void patch(
                { role: e.target.value as Role },
                `${member.name} is now ${e.target.value}.`,
              )
            }
          >
            <option value="member">Member</option>
            <option value="owner">Owner</option>
          </select>
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() =>
              void patch(
                { disabled: !member.disabled },
                member.disabled
                  ? `${member.name} can sign in again.`
                  : `${member.name} was signed out and disabled.`,
              )
            }
          >
            {member.disabled ? 'Enable' : 'Disable'}
          </button>
          <button
            type="button"
            className="button"
            aria-expanded={resetting}
            onClick={() => setResetting(!resetting)}
          >
            Reset password
          </button>
          <button type="button" className="button danger" disabled={busy} onClick={remove}>
            Remove
          </button>
        </span>
      )}
      {resetting && (
        <form className="teammate-reset" onSubmit={reset} noValidate>
          <label>
            New password for {member.name}
            <input
              type="password"
              autoComplete="new-password"
              minLength={MIN_PASSWORD}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </label>
          <button type="submit" className="button primary" disabled={busy}>
            Set password
          </button>
        </form>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {notice && (
        <p className="form-ok" role="status">
          {notice}
        </p>
      )}
    </li>
  );
}
