import { formatClock, formatDateTime } from '../../lib/format.ts';
import type { Note } from '../../lib/types.ts';

/** An internal note in the thread, told apart from texts: the customer never sees it. */
export function NoteBubble(props: { note: Note }) {
  const { note } = props;
  return (
    <li className="note-row" data-note-id={note.id}>
      <div className="note">
        <p className="note-label">Internal note · {note.author.name}</p>
        <p className="bubble-text">{note.body}</p>
        <time
          className="bubble-meta"
          dateTime={note.createdAt}
          title={formatDateTime(note.createdAt)}
        >
          {formatClock(note.createdAt)}
        </time>
      </div>
    </li>
  );
}
