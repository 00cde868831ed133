import type { Message } from '@switchboard/sdk';
import { Fragment, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Avatar } from '../../lib/avatar.tsx';
import { formatDay, formatPhone } from '../../lib/format.ts';
import { Icon } from '../../lib/icons.tsx';
import { Link, navigate } from '../../lib/router.tsx';
import { useLive, useSession } from '../../lib/session.tsx';
import type { Conversation, Note } from '../../lib/types.ts';
import { Composer, type Outgoing } from './Composer.tsx';
import {
  conversationSubtitle,
  conversationTitle,
  isOptedOutThread,
  sendingBlockedReason,
} from './conversation-labels.ts';
import type { Draft } from './InboxPage.tsx';
import { MessageBubble } from './MessageBubble.tsx';
import { NoteBubble } from './NoteBubble.tsx';
import { NoteComposer } from './NoteComposer.tsx';
import { TeamBar } from './TeamBar.tsx';

type Entry = { message: Message; note?: never } | { note: Note; message?: never };
const createdAt = (e: Entry) => (e.message ?? e.note).createdAt;

/** Messages and internal notes, in order, grouped under day headings. */
function byDay(messages: Message[], notes: Note[]): { day: string; entries: Entry[] }[] {
  const entries: Entry[] = [...messages.map((message) => ({ message }))];
  for (const note of notes) entries.push({ note });
  entries.sort((a, b) => (createdAt(a) < createdAt(b) ? -1 : createdAt(a) > createdAt(b) ? 1 : 0));
  const days: { day: string; entries: Entry[] }[] = [];
  for (const entry of entries) {
    const day = formatDay(createdAt(entry));
    const last = days.at(-1);
    if (last && last.day === day) last.entries.push(entry);
    else days.push({ day, entries: [entry] });
  }
  return days;
}

function Participants(props: { conversation: Conversation }) {
  const { live } = useSession();
  return (
    <ul className="participants" aria-label="Participants">
      {props.conversation.participants.map((p) => (
        <li key={p.phone} className={p.active ? 'chip' : 'chip inactive'}>
          {live.label(p.phone, p.name)}
          {live.nameFor(p.phone) || p.name ? (
            <span className="chip-sub"> {formatPhone(p.phone)}</span>
          ) : null}
          {p.optedOut ? (
            <span className="chip-sub"> (opted out)</span>
          ) : (
            !p.active && <span className="chip-sub"> (left)</span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** One conversation: its messages with live statuses, its participants, and the composer. */
export function ThreadView(props: { id: string; draft: Draft | null }) {
  const { live } = useSession();
  const snapshot = useLive();
  const [missing, setMissing] = useState<string | null>(null);
  const [writing, setWriting] = useState<'reply' | 'note'>('reply');
  const scroller = useRef<HTMLDivElement>(null);
  const stuckToBottom = useRef(true);

  useEffect(() => {
    live.setOpenConversation(props.id);
    live.loadThread(props.id).catch((error: Error) => setMissing(error.message));
    return () => live.setOpenConversation(null);
  }, [live, props.id]);

  const conversation = snapshot.conversations?.find((c) => c.id === props.id) ?? null;
  const messages = snapshot.threads[props.id];
  const notes = snapshot.notes[props.id];
  const typing = snapshot.typing[props.id];

  // Follow new messages unless the reader has scrolled up to read older ones.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stuckToBottom.current) el.scrollTop = el.scrollHeight;
  }, [messages, notes]);

  if (missing && !messages) {
    return (
      <div className="thread-empty">
        <h2>Conversation not found</h2>
        <p className="muted">{missing}</p>
        <Link className="button" href="/app/inbox">
          Back to the inbox
        </Link>
      </div>
    );
  }
  if (!conversation || !messages) {
    return <p className="list-note">Loading conversation…</p>;
  }

  const group = conversation.kind === 'group';
  const title = conversationTitle(live, conversation);
  const other = conversation.participants[0];

  const send = async (outgoing: Outgoing) => {
    const media = outgoing.mediaUrls.length > 0 ? { mediaUrls: outgoing.mediaUrls } : {};
    const body = outgoing.body.trim() === '' ? {} : { body: outgoing.body };
    if (group) {
      await live.send({ from: outgoing.from, conversationId: conversation.id, ...body, ...media });
    } else if (other) {
      await live.send({ from: outgoing.from, to: other.phone, ...body, ...media });
    }
    stuckToBottom.current = true;
  };

  return (
    <section className="thread" aria-labelledby="thread-title">
      <header className="thread-header">
        <Link className="icon-button back" href="/app/inbox" aria-label="Back to conversations">
          <Icon name="back" />
        </Link>
        <Avatar
          name={other && !group ? (live.nameFor(other.phone) ?? other.name) : null}
          seed={group ? conversation.id : (other?.phone ?? '')}
          group={group}
        />
        <div className="thread-heading">
          <h2 id="thread-title">
            {title}
            {isOptedOutThread(conversation) && <span className="pill bad-pill">Opted out</span>}
          </h2>
          <p className="muted">
            {conversationSubtitle(conversation)} · via {formatPhone(conversation.accountPhone)}
          </p>
        </div>
        {!group && other && (
          <button
            type="button"
            className="button small"
            onClick={() =>
              navigate('/app/calls', {
                state: {
                  dial: {
                    to: other.phone,
                    autoDial: false,
                    nonce: Date.now(),
                    from: conversation.accountPhone,
                  },
                },
              })
            }
          >
            <Icon name="phone" size={16} />
            <span>Call</span>
          </button>
        )}
      </header>
      <TeamBar conversation={conversation} />
      {group && <Participants conversation={conversation} />}
      <div
        className="messages"
        ref={scroller}
        role="log"
        aria-label={`Messages with ${title}`}
        tabIndex={0}
        onScroll={(e) => {
          const el = e.currentTarget;
          stuckToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
        }}
      >
        {byDay(messages, notes ?? []).map(({ day, entries }) => (
          <Fragment key={day}>
            <h3 className="day">{day}</h3>
            <ol className="bubbles">
              {entries.map((e) =>
                e.message ? (
                  <MessageBubble key={e.message.id} message={e.message} live={live} group={group} />
                ) : (
                  <NoteBubble key={e.note.id} note={e.note} />
                ),
              )}
            </ol>
          </Fragment>
        ))}
        {snapshot.outbox.some((q) => q.conversationId === props.id) && (
          <ol className="bubbles queued" aria-label="Outbox">
            {snapshot.outbox
              .filter((q) => q.conversationId === props.id)
              .map((q) => (
                <li key={q.key} className="bubble-row outbound">
                  <div className="bubble">
                    <p className="bubble-text">{q.input.body}</p>
                  </div>
                  <span className="bubble-meta">Waiting to send: goes out once online</span>
                </li>
              ))}
          </ol>
        )}
      </div>
      <p className="typing" aria-live="polite">
        {typing ? `${typing.user.name} is replying…` : ''}
      </p>
      <div className="segmented writing" role="group" aria-label="Write">
        {(['reply', 'note'] as const).map((w) => (
          <button key={w} type="button" aria-pressed={writing === w} onClick={() => setWriting(w)}>
            {w === 'reply' ? 'Reply' : 'Internal note'}
          </button>
        ))}
      </div>
      {writing === 'note' ? (
        <NoteComposer
          conversationId={conversation.id}
          onTyping={() => live.typing(conversation.id)}
        />
      ) : (
        <div onInput={() => live.typing(conversation.id)}>
          <Composer
            lines={[conversation.accountPhone]}
            initialBody={props.draft?.body}
            onSend={send}
            autoFocus
            blockedReason={sendingBlockedReason(live, conversation)}
          />
        </div>
      )}
    </section>
  );
}
