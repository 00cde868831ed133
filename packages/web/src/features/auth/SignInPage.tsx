import { useState, type FormEvent } from 'react';
import { ApiRequestError, signIn } from '../../lib/api.ts';
import { Field, FormError } from '../../lib/form.tsx';
import { Logo } from '../shell/Logo.tsx';

/** The sign-in form for an account's team members. */
export function SignInPage(props: {
  onSignedIn: () => Promise<void>;
  /** The session ended without this tab signing out (expired, or signed out elsewhere). */
  sessionEnded?: boolean;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // Nothing to check yet: no round trip, and no sign-in attempt counted against the email.
    if (email.trim() === '' || password === '') {
      setError('Enter your work email and your password.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await signIn(email.trim(), password);
      await props.onSignedIn();
    } catch (e) {
      const wrong = e instanceof ApiRequestError && e.status === 401;
      // A disabled login is told so (the server says it only to the right password).
      const disabled = wrong && /disabled/.test(e.message);
      setError(
        wrong && !disabled
          ? 'That email and password don’t match an account.'
          : (e as Error).message,
      );
      setBusy(false);
    }
  };

  return (
    <main className="signin" id="main">
      <div className="signin-card">
        <Logo />
        <h1>Sign in to your team’s inbox</h1>
        <p className="muted">Texts, calls and contacts for everyone on your account.</p>
        {props.sessionEnded && !error ? (
          <p className="notice" role="status">
            Your session has ended. Sign in again to continue.
          </p>
        ) : null}
        <form onSubmit={submit} noValidate>
          <Field label="Work email">
            <input
              type="email"
              name="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              // The first thing anyone does here is type their email.
              autoFocus
            />
          </Field>
          <Field label="Password">
            <input
              type="password"
              name="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </Field>
          <FormError message={error} />
          <button className="button primary wide" type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <p className="fine-print">
          No login yet? Ask an owner of your account to invite you from the dashboard.
        </p>
      </div>
    </main>
  );
}
