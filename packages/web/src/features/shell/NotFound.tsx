import { Link } from '../../lib/router.tsx';
import { usePageTitle } from './AppShell.tsx';

/** Any other path under /app (and the dashboard for members, who have none). */
export function NotFound() {
  usePageTitle('Not found');
  return (
    <section className="page narrow empty-page">
      <h1>Nothing here</h1>
      <p className="muted">This page doesn’t exist, or it is for account owners.</p>
      <Link className="button primary" href="/app/inbox">
        Go to the inbox
      </Link>
    </section>
  );
}
