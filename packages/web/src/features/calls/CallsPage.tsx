import { useState } from 'react';
import { Avatar } from '../../lib/avatar.tsx';
import { formatDateTime, formatDuration, formatPhone, formatShortTime } from '../../lib/format.ts';
import { Icon } from '../../lib/icons.tsx';
import { useRoute } from '../../lib/router.tsx';
import { useLive, useSession } from '../../lib/session.tsx';
import type { CallLogEntry } from '../../lib/types.ts';
import { usePageTitle } from '../shell/AppShell.tsx';
import { CallButton, TextButton } from '../shell/ReachButtons.tsx';
import { Dialer, dialOf } from './Dialer.tsx';

type Filter = 'all' | 'missed';

/** The number on the other end of a call. */
function otherParty(call: CallLogEntry): string {
  return call.direction === 'inbound' ? call.from : call.to;
}

function describe(call: CallLogEntry): string {
  if (call.status === 'missed') return call.direction === 'inbound' ? 'Missed call' : 'No answer';
  const way = call.direction === 'inbound' ? 'Incoming' : 'Outgoing';
  return `${way} · ${formatDuration(call.duration)}`;
}

function CallRow(props: { call: CallLogEntry }) {
  const { live } = useSession();
  const call = props.call;
  const phone = otherParty(call);
  const name = live.nameFor(phone) ?? call.contactName;
  const missed = call.status === 'missed';
  const icon = missed ? 'missed' : call.direction === 'inbound' ? 'incoming' : 'outgoing';
  const label = name ?? formatPhone(phone);
  return (
    <li className={missed ? 'call-row missed' : 'call-row'} data-call-id={call.id}>
      <Avatar name={name} seed={phone} />
      <div className="call-main">
        <span className="call-name">{label}</span>
        <span className="call-detail">
          <Icon name={icon} size={14} />
          <span>{describe(call)}</span>
          {name && <span className="muted"> · {formatPhone(phone)}</span>}
        </span>
        <span className="call-line muted">
          on {formatPhone(call.direction === 'inbound' ? call.to : call.from)}
        </span>
      </div>
      <time className="call-time" dateTime={call.startedAt} title={formatDateTime(call.startedAt)}>
        {formatShortTime(call.startedAt)}
      </time>
      <div className="row-actions">
        <CallButton
          phone={phone}
          label={label}
          title="Call back"
          from={call.direction === 'inbound' ? call.to : call.from}
        />
        <TextButton phone={phone} label={label} />
      </div>
    </li>
  );
}

/** The call history (completed and missed, missed highlighted) beside the dialer. */
export function CallsPage() {
  usePageTitle('Calls');
  const { calls } = useLive();
  const route = useRoute();
  const [filter, setFilter] = useState<Filter>('all');
  const dial = dialOf(route.state);
  const rows = (calls ?? []).filter((c) => filter === 'all' || c.status === 'missed');
  const missedCount = (calls ?? []).filter((c) => c.status === 'missed').length;

  return (
    <section className="page calls-page" aria-labelledby="calls-title">
      <header className="page-header">
        <h1 id="calls-title">Calls</h1>
        <div className="segmented" role="group" aria-label="Show">
          <button type="button" aria-pressed={filter === 'all'} onClick={() => setFilter('all')}>
            All
          </button>
          <button
            type="button"
            aria-pressed={filter === 'missed'}
            onClick={() => setFilter('missed')}
          >
            Missed{missedCount > 0 ? ` (${missedCount})` : ''}
          </button>
        </div>
      </header>
      <div className="split">
        <div className="card list-card">
          <h2 className="visually-hidden">History</h2>
          {calls === null ? (
            <p className="list-note">Loading calls…</p>
          ) : rows.length === 0 ? (
            <p className="list-note">
              {filter === 'missed' ? 'No missed calls.' : 'No calls yet in this mode.'}
            </p>
          ) : (
            <ul className="call-list" aria-label="Call history">
              {rows.map((call) => (
                <CallRow key={call.id} call={call} />
              ))}
            </ul>
          )}
        </div>
        <Dialer key={dial ? JSON.stringify(dial) : 'idle'} request={dial} />
      </div>
    </section>
  );
}
