import { useState, type KeyboardEvent } from 'react';
import { Avatar } from '../../lib/avatar.tsx';
import { formatDateTime, formatPhone, formatShortTime } from '../../lib/format.ts';
import { SearchField } from '../../lib/form.tsx';
import { Icon } from '../../lib/icons.tsx';
import { Link } from '../../lib/router.tsx';
import { useLive, useSession } from '../../lib/session.tsx';
import type { Conversation } from '../../lib/types.ts';
import { NotificationSettingsPanel } from '../notifications/NotificationSettingsPanel.tsx';
import { LineFilter } from './LineFilter.tsx';
import { conversationTitle, isOptedOutThread, messagePreview } from './conversation-labels.ts';

type Filter = 'all' | 'unread' | 'mine' | 'unassigned';
type Status = 'open' | 'done';

const FILTER_LABELS: Record<Filter, string> = {
  all: 'All',
  unread: 'Unread',
  mine: 'Mine',
  unassigned: 'Unassigned',
};

// Up and down arrows walk the list, as in a mail client; Tab still leaves it.
function moveFocus(event: KeyboardEvent<HTMLUListElement>) {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  const links = [...event.currentTarget.querySelectorAll<HTMLAnchorElement>('a.conversation')];
  const index = links.indexOf(document.activeElement as HTMLAnchorElement);
  if (index === -1) return;
  event.preventDefault();
  const next = links[index + (event.key === 'ArrowDown' ? 1 : -1)];
  next?.focus();
}

/** The conversation list: newest first, unread in bold with a count, filterable and searchable. */
export function ConversationList(props: { selectedId: string | null }) {
  const { live, mode, me } = useSession();
  const { conversations } = useLive();
  const [filter, setFilter] = useState<Filter>('all');
  const [status, setStatus] = useState<Status>('open');
  const [query, setQuery] = useState('');
  const [line, setLine] = useState('');

  const q = query.trim().toLowerCase();
  // `555 01` finds +14155550123 however the number was typed.
  const digits = q.replace(/\D/g, '');
  const rows = (conversations ?? []).filter((c) => {
    if (c.status !== status) return false;
    if (filter === 'unread' && c.unreadCount === 0) return false;
    if (filter === 'mine' && c.assigneeId !== me.user.id) return false;
    if (filter === 'unassigned' && c.assigneeId !== null) return false;
    if (line !== '' && c.accountPhone !== line) return false;
    if (q === '') return true;
    const haystack = [
      conversationTitle(live, c),
      ...c.participants.map((p) => p.phone),
      c.lastMessage?.body ?? '',
    ]
      .join(' ')
      .toLowerCase();
    if (haystack.includes(q)) return true;
    return digits.length >= 3 && c.participants.some((p) => p.phone.includes(digits));
  });

  return (
    <section className="list-pane" aria-labelledby="inbox-title">
      <header className="pane-header">
        <h1 id="inbox-title">Inbox {mode === 'test' && <span className="mode-tag">Test</span>}</h1>
        <Link
          className="button primary small"
          href="/app/inbox/new"
          state={() => ({ fresh: Date.now() })}
        >
          <Icon name="plus" size={16} />
          <span className="label-wide">New message</span>
        </Link>
      </header>
      <div className="list-tools">
        <SearchField
          label="Search conversations"
          placeholder="Search"
          value={query}
          onChange={setQuery}
        />
        <div className="segmented" role="group" aria-label="Status">
          {(['open', 'done'] as const).map((s) => (
            <button key={s} type="button" aria-pressed={status === s} onClick={() => setStatus(s)}>
              {s === 'open' ? 'Open' : 'Done'}
            </button>
          ))}
        </div>
        <LineFilter value={line} onChange={setLine} />
        <div className="segmented" role="group" aria-label="Show">
          {(['all', 'unread', 'mine', 'unassigned'] as const).map((f) => (
            <button key={f} type="button" aria-pressed={filter === f} onClick={() => setFilter(f)}>
              {FILTER_LABELS[f]}
            </button>
          ))}
        </div>
      </div>
      <NotificationSettingsPanel />
      {conversations === null ? (
        <p className="list-note">Loading conversations…</p>
      ) : rows.length === 0 ? (
        <p className="list-note">
          {conversations.length === 0
            ? 'No conversations yet. Texts sent through the API or from here appear at once.'
            : status === 'done' && filter === 'all' && q === ''
              ? 'No conversation is done yet.'
              : 'Nothing matches.'}
        </p>
      ) : (
        <ul className="conversation-list" aria-label="Conversations" onKeyDown={moveFocus}>
          {rows.map((c) => (
            <ConversationRow key={c.id} conversation={c} selected={c.id === props.selectedId} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ConversationRow(props: { conversation: Conversation; selected: boolean }) {
  const { live, numbers } = useSession();
  const c = props.conversation;
  const title = conversationTitle(live, c);
  const group = c.kind === 'group';
  const unread = c.unreadCount > 0;
  const other = c.participants[0];
  return (
    <li>
      <Link
        href={`/app/inbox/${c.id}`}
        className={`conversation${unread ? ' unread' : ''}`}
        aria-current={props.selected ? 'page' : undefined}
        data-conversation-id={c.id}
      >
        <Avatar
          name={other && !group ? (live.nameFor(other.phone) ?? other.name) : null}
          seed={group ? c.id : (other?.phone ?? c.id)}
          group={group}
        />
        <span className="conversation-main">
          <span className="conversation-top">
            <span className="conversation-name">{title}</span>
            {isOptedOutThread(c) && <span className="pill bad-pill">Opted out</span>}
            <time dateTime={c.lastMessageAt} title={formatDateTime(c.lastMessageAt)}>
              {formatShortTime(c.lastMessageAt)}
            </time>
          </span>
          <span className="conversation-bottom">
            <span className="conversation-preview">
              {messagePreview(live, c.lastMessage, group)}
            </span>
            {c.assigneeId && (
              <span className="assignee-tag" title="Assigned to">
                {live.teammateName(c.assigneeId) ?? 'Assigned'}
              </span>
            )}
            {numbers.length > 1 && (
              <span className="conversation-line">on {formatPhone(c.accountPhone)}</span>
            )}
            {unread && (
              <span className="badge" aria-label={`${c.unreadCount} unread`}>
                {c.unreadCount}
              </span>
            )}
          </span>
        </span>
      </Link>
    </li>
  );
}
