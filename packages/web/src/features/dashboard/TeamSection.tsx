import { useState, type FormEvent } from 'react';
import { Field, FormError } from '../../lib/form.tsx';
import { useSession } from '../../lib/session.tsx';
import type { ListOf, Role, TeamMember } from '../../lib/types.ts';
import { useResource } from '../../lib/use-resource.ts';
import { TeammateRow } from './TeammateRow.tsx';

const MIN_PASSWORD = 8;

/** The account's team, and inviting someone: a login with email, name and a first password. */
export function TeamSection() {
  const { api } = useSession();
  const team = useResource(() => api.get<ListOf<TeamMember>>('/team'), 'team');
  const [form, setForm] = useState({ email: '', name: '', password: '', role: 'member' as Role });
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const invite = async (event: FormEvent) => {
    event.preventDefault();
    if (form.password.length < MIN_PASSWORD) {
      setError(`The password needs at least ${MIN_PASSWORD} characters.`);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const user = await api.post<TeamMember>('/team', {
        email: form.email.trim(),
        password: form.password,
        role: form.role,
        ...(form.name.trim() ? { name: form.name.trim() } : {}),
      });
      setNotice(
        `${user.name} can now sign in as ${user.email}. Share the password with them privately.`,
      );
      setForm({ email: '', name: '', password: '', role: 'member' });
      team.reload();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="dashboard-grid">
      <section className="card" aria-labelledby="team-title">
        <h2 id="team-title">Team</h2>
        {team.error && <p className="form-error">{team.error}</p>}
        <ul className="plain-list" aria-label="Team members">
          {team.data?.data.map((u) => (
            <TeammateRow key={u.id} member={u} onChanged={team.reload} />
          ))}
        </ul>
      </section>
      <form className="card" onSubmit={invite} aria-labelledby="invite-title" noValidate>
        <h2 id="invite-title">Invite a teammate</h2>
        <p className="muted">
          Members use the inbox, calls and contacts. Owners also see this dashboard.
        </p>
        <Field label="Email">
          <input
            type="email"
            required
            autoComplete="off"
            value={form.email}
            onChange={(e) => setForm({ ...form, email: e.target.value })}
          />
        </Field>
        <Field label="Name">
          <input
            type="text"
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
          />
        </Field>
        <Field label="First password">
          <input
            type="password"
            required
            minLength={MIN_PASSWORD}
            autoComplete="new-password"
            value={form.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
          />
        </Field>
        <Field label="Role">
          <select
            value={form.role}
            onChange={(e) => setForm({ ...form, role: e.target.value as Role })}
          >
            <option value="member">Member</option>
            <option value="owner">Owner</option>
          </select>
        </Field>
        <FormError message={error} />
        {notice && (
          <p className="form-ok" role="status">
            {notice}
          </p>
        )}
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Inviting…' : 'Invite'}
        </button>
      </form>
    </div>
  );
}
