import type { Message, MessageStatus } from '@switchboard/sdk';
import { describeFailure, formatClock, formatDateTime, formatPhone } from '../../lib/format.ts';
import { Icon } from '../../lib/icons.tsx';
import type { LiveData } from '../../lib/live-data.ts';
import { MediaItem } from './MediaItem.tsx';

const STATUS_TEXT: Record<MessageStatus, string> = {
  queued: 'Sending…',
  sent: 'Sent',
  delivered: 'Delivered',
  failed: 'Failed',
};

/** Per-participant delivery of a group message, folded into one line until opened. */
function GroupStatuses(props: { message: Message; live: LiveData }) {
  const participants = props.message.participants ?? [];
  if (participants.length === 0) return null;
  const delivered = participants.filter((p) => p.status === 'delivered').length;
  return (
    <details className="group-statuses">
      <summary>
        Delivered to {delivered} of {participants.length}
      </summary>
      <ul>
        {participants.map((p) => (
          <li key={p.phone}>
            <span>{props.live.label(p.phone)}</span>
            <span className={`status status-${p.status}`} data-status={p.status}>
              {STATUS_TEXT[p.status]}
            </span>
          </li>
        ))}
      </ul>
    </details>
  );
}

/**
 * One message of a thread: inbound on the left, outbound on the right with who sent it (a team
 * member, an integration's senderName, an auto-reply) and its live status; failures say why.
 */
export function MessageBubble(props: { message: Message; live: LiveData; group: boolean }) {
  const { message: m, live, group } = props;
  const outbound = m.direction === 'outbound';
  const author = outbound ? (m.senderName ?? formatPhone(m.from)) : live.label(m.from);
  const statusText = STATUS_TEXT[m.status];
  return (
    <li
      className={`bubble-row ${m.direction}${m.status === 'failed' ? ' failed' : ''}`}
      data-message-id={m.id}
    >
      {(outbound || group) && <span className="bubble-author">{author}</span>}
      <div className="bubble">
        {m.media.length > 0 && (
          <div className="bubble-media">
            {m.media.map((media) => (
              <MediaItem key={media.url} media={media} sender={author} />
            ))}
          </div>
        )}
        {m.body && <p className="bubble-text">{m.body}</p>}
      </div>
      <span className="bubble-meta">
        <time dateTime={m.createdAt} title={formatDateTime(m.createdAt)}>
          {formatClock(m.createdAt)}
        </time>
        {outbound && (
          <>
            <span aria-hidden="true"> · </span>
            <span className={`status status-${m.status}`} data-status={m.status}>
              {m.status === 'delivered' && <Icon name="check" size={12} />}
              {statusText}
            </span>
          </>
        )}
      </span>
      {m.status === 'failed' && (
        <p className="bubble-failure">
          <Icon name="alert" size={14} />
          <span>{describeFailure(m.failureReason)}</span>
        </p>
      )}
      {outbound && group && <GroupStatuses message={m} live={live} />}
    </li>
  );
}
