import { useEffect, useRef } from 'react';
import { useSession } from '../../lib/session.tsx';

/**
 * Asked before a group send that would leave people out: who, and why (they texted STOP).
 * A modal `<dialog>`: focus stays inside, and Escape cancels like the Cancel button.
 */
export function GroupDropDialog(props: {
  dropped: string[];
  remaining: number;
  onAnswer(send: boolean): void;
}) {
  const { live } = useSession();
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const names = props.dropped.map((phone) => live.label(phone));
  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby="drop-title"
      onCancel={(e) => {
        e.preventDefault();
        props.onAnswer(false);
      }}
    >
      <h2 id="drop-title">
        {names.length === 1
          ? '1 person won’t get this text'
          : `${names.length} people won’t get this text`}
      </h2>
      <p>
        {names.join(', ')} {names.length === 1 ? 'has' : 'have'} opted out (texted STOP), so the
        text goes to the other {props.remaining} only.
      </p>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={() => props.onAnswer(false)}>
          Cancel
        </button>
        <button type="button" className="button primary" onClick={() => props.onAnswer(true)}>
          Send to the other {props.remaining}
        </button>
      </div>
    </dialog>
  );
}
