import { Link } from '../../lib/router.tsx';
import { useSession } from '../../lib/session.tsx';
import { NotFound } from '../shell/NotFound.tsx';
import { usePageTitle } from '../shell/AppShell.tsx';
import { ApiKeysSection } from './ApiKeysSection.tsx';
import { CarriersSection } from './CarriersSection.tsx';
import { NumbersSection } from './NumbersSection.tsx';
import { SettingsSection } from './SettingsSection.tsx';
import { TeamSection } from './TeamSection.tsx';
import { WebhooksSection } from './WebhooksSection.tsx';

const SECTIONS = [
  { id: 'keys', label: 'API keys', Component: ApiKeysSection },
  { id: 'webhooks', label: 'Webhooks', Component: WebhooksSection },
  { id: 'numbers', label: 'Numbers & opt-outs', Component: NumbersSection },
  { id: 'carriers', label: 'Carriers', Component: CarriersSection },
  { id: 'team', label: 'Team', Component: TeamSection },
  { id: 'settings', label: 'Settings', Component: SettingsSection },
] as const;

/** The owners' dashboard: keys, webhooks, numbers and opt-outs, carriers, the team, and settings. */
export function DashboardPage(props: { section: string }) {
  const { me, mode } = useSession();
  const current = SECTIONS.find((s) => s.id === props.section);
  usePageTitle(current ? `${current.label} · Dashboard` : 'Dashboard');
  if (!current) return <NotFound />;
  const { Component } = current;
  return (
    <section className="page dashboard" aria-labelledby="dashboard-title">
      <header className="page-header">
        <div>
          <h1 id="dashboard-title">Dashboard</h1>
          <p className="muted">
            {me.account.name} · {mode === 'live' ? 'Live mode' : 'Test mode'}
          </p>
        </div>
      </header>
      <nav className="tabs" aria-label="Dashboard sections">
        {SECTIONS.map((s) => (
          <Link
            key={s.id}
            href={`/app/dashboard/${s.id}`}
            className="tab"
            aria-current={s.id === current.id ? 'page' : undefined}
          >
            {s.label}
          </Link>
        ))}
      </nav>
      {/* Keyed by mode: test and live are separate worlds with separate lists. */}
      <Component key={mode} />
    </section>
  );
}
