import { useEffect, useState } from 'react';
import { ApiRequestError } from '../../lib/api.ts';
import { Icon } from '../../lib/icons.tsx';
import { Link, navigate } from '../../lib/router.tsx';
import { useLive, useSession } from '../../lib/session.tsx';
import { Composer, type Outgoing } from './Composer.tsx';
import type { Draft, DraftState } from './InboxPage.tsx';
import { GroupDropDialog } from './GroupDropDialog.tsx';
import { RecipientsField, recipientsWithPending } from './RecipientsField.tsx';

/**
 * A new text to one number (a one-to-one thread, continuing any earlier one with them) or to
 * several (a group). A deep link's draft arrives here pre-addressed; sending is up to the user.
 */
export function NewConversation(props: { draft: Draft | null }) {
  const { live, numbers } = useSession();
  const { conversations, contacts } = useLive();
  const [recipients, setRecipients] = useState<string[]>(props.draft?.to ?? []);
  const [pending, setPending] = useState('');
  // What is typed so far, carried along when the user opens the existing thread instead.
  const [body, setBody] = useState(props.draft?.body ?? '');
  // The chosen recipients that texted STOP, kept current as chips come and go.
  const [optedOut, setOptedOut] = useState<string[]>([]);
  const [asking, setAsking] = useState<{
    dropped: string[];
    remaining: number;
    answer(send: boolean): void;
  } | null>(null);

  useEffect(() => {
    let current = true;
    if (recipients.length === 0) {
      setOptedOut([]);
      return;
    }
    live.optedOutAmong(recipients).then(
      (phones) => current && setOptedOut(phones),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [live, recipients]);
  const blockedReason =
    recipients.length > 0 && recipients.every((r) => optedOut.includes(r))
      ? recipients.length === 1
        ? `${live.label(recipients[0]!)} texted STOP and has opted out: sending is off until they text START.`
        : 'Everyone here has opted out (texted STOP): sending is off.'
      : null;

  const existing =
    recipients.length === 1
      ? (conversations ?? []).find(
          (c) => c.kind === 'direct' && c.participants[0]?.phone === recipients[0],
        )
      : undefined;

  const send = async (outgoing: Outgoing) => {
    const to = recipientsWithPending(recipients, pending, contacts ?? []);
    if (typeof to === 'string') throw new ApiRequestError(422, 'validation_error', to, 'to');
    if (to.length === 0) {
      throw new ApiRequestError(422, 'validation_error', 'Add at least one recipient.', 'to');
    }
    if (to.length > 1) {
      // A group send drops whoever opted out (docs/behaviour.md#groups): ask first.
      const dropped = await live.optedOutAmong(to);
      const remaining = to.length - dropped.length;
      if (dropped.length > 0 && remaining > 0) {
        const send = await new Promise<boolean>((answer) =>
          setAsking({ dropped, remaining, answer }),
        );
        setAsking(null);
        if (!send) throw new Error('cancelled; nothing was sent.');
      }
    }
    const message = await live.send({
      from: outgoing.from,
      to: to.length === 1 ? to[0]! : to,
      ...(outgoing.body.trim() === '' ? {} : { body: outgoing.body }),
      ...(outgoing.mediaUrls.length > 0 ? { mediaUrls: outgoing.mediaUrls } : {}),
    });
    // Queued offline: its thread, when one exists already, shows it waiting.
    const thread = message?.conversationId ?? (to.length === 1 ? existing?.id : undefined);
    navigate(thread ? `/app/inbox/${thread}` : '/app/inbox', { replace: true });
  };

  return (
    <section className="thread new-conversation" aria-labelledby="new-title">
      <header className="thread-header">
        <Link className="icon-button back" href="/app/inbox" aria-label="Back to conversations">
          <Icon name="back" />
        </Link>
        <div className="thread-heading">
          <h2 id="new-title">New message</h2>
          <p className="muted">One number for a one-to-one text, several for a group.</p>
        </div>
      </header>
      <RecipientsField
        value={recipients}
        onChange={setRecipients}
        pending={pending}
        onPendingChange={setPending}
      />
      <div className="messages new-hint">
        {existing ? (
          <p className="muted">
            You already have a conversation with {live.label(recipients[0]!)}.{' '}
            <Link
              href={`/app/inbox/${existing.id}`}
              state={body.trim() === '' ? undefined : ({ draft: { body } } satisfies DraftState)}
            >
              Open it
            </Link>{' '}
            — a text sent from its line continues it.
          </p>
        ) : recipients.length > 1 ? (
          <p className="muted">This starts a group conversation with {recipients.length} people.</p>
        ) : null}
      </div>
      {numbers.length === 0 ? (
        <p className="form-error" role="alert">
          This account has no numbers in this mode yet.
        </p>
      ) : (
        <Composer
          lines={numbers}
          initialFrom={props.draft?.from}
          initialBody={props.draft?.body}
          onBodyChange={setBody}
          onSend={send}
          autoFocus={recipients.length > 0}
          blockedReason={blockedReason}
        />
      )}
      {asking && (
        <GroupDropDialog
          dropped={asking.dropped}
          remaining={asking.remaining}
          onAnswer={asking.answer}
        />
      )}
    </section>
  );
}
