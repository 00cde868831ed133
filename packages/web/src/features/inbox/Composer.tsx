import { countSegments } from '@switchboard/sdk/segments';
import { useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { ApiRequestError } from '../../lib/api.ts';
import { FormError } from '../../lib/form.tsx';
import { formatPhone } from '../../lib/format.ts';
import { Icon } from '../../lib/icons.tsx';
import { useSession } from '../../lib/session.tsx';
import { PicturePicker, type Picture } from './PicturePicker.tsx';

/** What the composer hands over when the user presses send. */
export interface Outgoing {
  from: string;
  body: string;
  mediaUrls: string[];
}

const BODY_MAX = 1600;

/** Turns an API refusal into words for the person sending. */
function sendErrorText(error: unknown): string {
  if (error instanceof ApiRequestError) {
    if (error.type === 'recipient_opted_out') {
      return 'Not sent: this number texted STOP and has opted out. It can text START to opt back in.';
    }
    return `Not sent: ${error.message}`;
  }
  return `Not sent: ${(error as Error).message}`;
}

/**
 * The message box: text (pre-filled by a draft, always editable, never sent by itself), an
 * optional media link or pictures, and the line it goes out on. Enter sends, Shift+Enter starts a new line.
 */
export function Composer(props: {
  /** The lines to choose from; one line means the thread's own number, shown but fixed. */
  lines: string[];
  initialFrom?: string | undefined;
  initialBody?: string | undefined;
  onSend(outgoing: Outgoing): Promise<void>;
  /** Told the text as it is typed (a new conversation carries it to an existing thread). */
  onBodyChange?: (body: string) => void;
  autoFocus?: boolean;
  disabled?: boolean;
  /** Why sending is off here (an opted-out number): the box is disabled and says so. */
  blockedReason?: string | null | undefined;
}) {
  const [body, setBody] = useState(props.initialBody ?? '');
  const [from, setFrom] = useState(
    props.initialFrom && props.lines.includes(props.initialFrom)
      ? props.initialFrom
      : (props.lines[0] ?? ''),
  );
  const [mediaOpen, setMediaOpen] = useState(false);
  const [mediaUrl, setMediaUrl] = useState('');
  const [pictures, setPictures] = useState<Picture[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const ids = useId();

  const { me, mode } = useSession();
  // An SMPP line carries no media (the API refuses an MMS from it): it offers text only.
  const carriesMedia = mode !== 'live' || !me.textOnly.includes(from);
  const media = carriesMedia
    ? [...(mediaUrl.trim() === '' ? [] : [mediaUrl.trim()]), ...pictures.map((p) => p.url)]
    : [];
  const { segments } = countSegments(body);
  const blocked = props.blockedReason ?? null;
  const canSend =
    !busy &&
    !props.disabled &&
    blocked === null &&
    from !== '' &&
    (body.trim() !== '' || media.length > 0);

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (!canSend) return;
    setBusy(true);
    setError(null);
    try {
      await props.onSend({ from, body, mediaUrls: media });
      setBody('');
      setMediaUrl('');
      setPictures([]);
      setMediaOpen(false);
    } catch (e) {
      setError(sendErrorText(e));
    } finally {
      setBusy(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
  };

  return (
    <form className="composer" ref={formRef} onSubmit={submit} aria-label="Compose a message">
      <div className="composer-line">
        <label htmlFor={`${ids}-from`}>From</label>
        {props.lines.length > 1 ? (
          <select id={`${ids}-from`} value={from} onChange={(e) => setFrom(e.target.value)}>
            {props.lines.map((line) => (
              <option key={line} value={line}>
                {formatPhone(line)}
              </option>
            ))}
          </select>
        ) : (
          <output id={`${ids}-from`}>{from ? formatPhone(from) : 'No number in this mode'}</output>
        )}
      </div>
      {mediaOpen && carriesMedia && (
        <div className="composer-media">
          <label htmlFor={`${ids}-media`}>Media link</label>
          <input
            id={`${ids}-media`}
            type="url"
            inputMode="url"
            placeholder="https://…/photo.jpg"
            value={mediaUrl}
            onChange={(e) => setMediaUrl(e.target.value)}
          />
        </div>
      )}
      <div className="composer-box">
        <label htmlFor={`${ids}-body`} className="visually-hidden">
          Message
        </label>
        <textarea
          id={`${ids}-body`}
          name="body"
          rows={2}
          maxLength={BODY_MAX}
          placeholder="Write a message…"
          value={body}
          onChange={(e) => {
            setBody(e.target.value);
            props.onBodyChange?.(e.target.value);
          }}
          onKeyDown={onKeyDown}
          autoFocus={props.autoFocus && blocked === null}
          disabled={blocked !== null}
          aria-describedby={blocked === null ? `${ids}-count` : `${ids}-blocked`}
        />
        <div className="composer-actions">
          {carriesMedia && (
            <>
              <button
                type="button"
                className="icon-button"
                aria-pressed={mediaOpen}
                aria-label="Attach a media link"
                title="Attach a media link"
                onClick={() => setMediaOpen((open) => !open)}
              >
                <Icon name="paperclip" />
              </button>
              <PicturePicker
                pictures={pictures}
                onChange={setPictures}
                onError={setError}
                disabled={busy || props.disabled}
              />
            </>
          )}
          <span className="composer-count" id={`${ids}-count`}>
            {body.length > 0
              ? `${body.length} chars · ${segments} ${segments === 1 ? 'segment' : 'segments'}`
              : ''}
          </span>
          <button type="submit" className="button primary" disabled={!canSend}>
            <Icon name="send" size={16} />
            <span>{busy ? 'Sending…' : 'Send'}</span>
          </button>
        </div>
      </div>
      {blocked !== null && (
        <p className="composer-blocked" id={`${ids}-blocked`} role="status">
          {blocked}
        </p>
      )}
      <FormError message={error} />
    </form>
  );
}
