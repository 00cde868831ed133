import type { MessageMedia } from '@switchboard/sdk';
import { useState } from 'react';
import { Icon } from '../../lib/icons.tsx';

/** The file name a link ends with, or what it is when it names none (a kept medium's `med_…`). */
function nameOf(media: MessageMedia): string {
  // Kept media are on the service's own links, relative when it has no public address.
  const url = new URL(media.url, window.location.href);
  const last = decodeURIComponent(url.pathname.split('/').pop() || '');
  return /^med_/.test(last) || last === '' ? media.contentType : last;
}

function sizeText(size: number | null | undefined): string {
  if (size === null || size === undefined) return '';
  if (size < 1024) return `${size} bytes`;
  if (size < 1024 * 1024) return `${Math.round(size / 1024)} KB`;
  return `${(size / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * One attachment of a message: a picture as a thumbnail that opens full size, anything else
 * (or a picture that will not load) as a file link; an inbound item the service did not keep
 * says so and why. `sender` names who sent it, for the picture's alternative text.
 */
export function MediaItem(props: { media: MessageMedia; sender: string }) {
  const { media, sender } = props;
  const [broken, setBroken] = useState(false);
  const name = nameOf(media);
  if (media.kept === false) {
    return (
      <span className="media-file media-not-kept" data-kept="false">
        <Icon name="paperclip" size={16} />
        <span>
          {name} not kept: {media.reason ?? 'unknown reason'}
        </span>
      </span>
    );
  }
  if (media.contentType.startsWith('image/') && !broken) {
    const size = sizeText(media.size);
    return (
      <a
        href={media.url}
        target="_blank"
        rel="noreferrer"
        className="media-image"
        title={`Open full size${size ? ` (${size})` : ''}`}
      >
        <img
          src={media.url}
          alt={`Picture ${name === media.contentType ? '' : `${name} `}from ${sender}`}
          loading="lazy"
          onError={() => setBroken(true)}
        />
      </a>
    );
  }
  return (
    <a href={media.url} target="_blank" rel="noreferrer" className="media-file">
      <Icon name="paperclip" size={16} />
      <span>{name}</span>
      <span className="media-type">{media.contentType}</span>
    </a>
  );
}
