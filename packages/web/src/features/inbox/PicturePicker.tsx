import { useId, useRef, useState } from 'react';
import { ApiRequestError } from '../../lib/api.ts';
import { Icon } from '../../lib/icons.tsx';
import { useSession } from '../../lib/session.tsx';

/** A picture attached to the message being written: its link in the media store, and a preview. */
export interface Picture {
  url: string;
  preview: string;
  name: string;
}

/**
 * Attaches pictures to an MMS: each chosen file goes into the media store at once, and the
 * message then carries its link. Previews show what will be sent, each with its alt text.
 */
export function PicturePicker(props: {
  pictures: Picture[];
  onChange(pictures: Picture[]): void;
  onError(message: string | null): void;
  disabled?: boolean;
}) {
  const { api } = useSession();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  const choose = async (files: FileList | null) => {
    if (!files || files.length === 0) return;
    setBusy(true);
    props.onError(null);
    const added: Picture[] = [];
    try {
      for (const file of Array.from(files)) {
        const stored = await api.upload<{ url: string }>('/media', file);
        added.push({ url: stored.url, preview: URL.createObjectURL(file), name: file.name });
      }
    } catch (e) {
      props.onError(
        `Not attached: ${e instanceof ApiRequestError ? e.message : (e as Error).message}`,
      );
    } finally {
      setBusy(false);
      props.onChange([...props.pictures, ...added].slice(0, 10));
      if (input.current) input.current.value = '';
    }
  };

  return (
    <>
      <input
        ref={input}
        id={id}
        type="file"
        accept="image/jpeg,image/png,image/gif,image/webp"
        multiple
        className="visually-hidden"
        tabIndex={-1}
        aria-hidden="true"
        onChange={(e) => void choose(e.target.files)}
      />
      <button
        type="button"
        className="icon-button"
        aria-label="Attach a picture"
        title="Attach a picture"
        disabled={props.disabled || busy}
        onClick={() => input.current?.click()}
      >
        <Icon name="image" />
      </button>
      {props.pictures.length > 0 && (
        <ul className="composer-pictures" aria-label="Pictures to send">
          {props.pictures.map((p) => (
            <li key={p.url}>
              <img src={p.preview} alt={`Picture to send: ${p.name}`} />
              <button
                type="button"
                className="icon-button"
                aria-label={`Remove ${p.name}`}
                onClick={() => props.onChange(props.pictures.filter((q) => q !== p))}
              >
                <Icon name="x" size={14} />
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
