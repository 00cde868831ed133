import { Icon } from '../../lib/icons.tsx';
import { navigate } from '../../lib/router.tsx';
import type { DialState } from '../calls/Dialer.tsx';
import type { DraftState } from '../inbox/InboxPage.tsx';

// The call and text buttons of a list row (call history, contacts): one place for where they
// lead and what they carry, so every row that reaches a number behaves the same.

/**
 * Opens the dialer addressed to `phone`, waiting for the person to press Call; from the line
 * `from` when given. `label` names who is called, for screen readers; `title` is the tooltip.
 */
export function CallButton(props: { phone: string; label: string; title: string; from?: string }) {
  return (
    <button
      type="button"
      className="icon-button"
      aria-label={`Call ${props.label}`}
      title={props.title}
      onClick={() => {
        const dial = { to: props.phone, autoDial: false, nonce: Date.now() };
        const state: DialState = { dial: props.from ? { ...dial, from: props.from } : dial };
        navigate('/app/calls', { state });
      }}
    >
      <Icon name="phone" />
    </button>
  );
}

/** Opens a new message to `phone`; `label` names the recipient for screen readers. */
export function TextButton(props: { phone: string; label: string }) {
  return (
    <button
      type="button"
      className="icon-button"
      aria-label={`Text ${props.label}`}
      title="Text"
      onClick={() => {
        const state: DraftState = { draft: { to: [props.phone] } };
        navigate('/app/inbox/new', { state });
      }}
    >
      <Icon name="message" />
    </button>
  );
}
