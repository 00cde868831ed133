import { initials } from './format.ts';
import { Icon } from './icons.tsx';

// Calm tints, each dark enough for white initials to pass WCAG AA.
const TINTS = [
  '#4f46e5',
  '#0f766e',
  '#b45309',
  '#be185d',
  '#1d4ed8',
  '#7c3aed',
  '#047857',
  '#9f1239',
];

function tintOf(seed: string): string {
  let hash = 0;
  for (const char of seed) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return TINTS[hash % TINTS.length]!;
}

/** A round badge with a person's initials (a plain figure for a bare number), tinted by their number. */
export function Avatar(props: {
  name: string | null;
  seed: string;
  size?: 'small' | 'large';
  group?: boolean;
}) {
  const label = props.group ? (
    <Icon name="users" size={16} />
  ) : props.name ? (
    initials(props.name)
  ) : (
    <Icon name="user" size={16} />
  );
  return (
    <span
      className={`avatar ${props.size ?? ''}`}
      style={{ background: tintOf(props.seed) }}
      aria-hidden="true"
    >
      {label}
    </span>
  );
}
