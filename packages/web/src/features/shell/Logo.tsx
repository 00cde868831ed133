/** The Switchboard mark and word, as on the app icon. */
export function Logo(props: { compact?: boolean }) {
  return (
    <span className="logo">
      <svg width="28" height="28" viewBox="0 0 64 64" aria-hidden="true" focusable="false">
        <rect width="64" height="64" rx="16" fill="var(--accent)" />
        <path d="M20 24h24M20 32h16M20 40h20" stroke="#fff" strokeWidth="5" strokeLinecap="round" />
        <circle cx="49" cy="40" r="4" fill="#fff" />
      </svg>
      {!props.compact && <span className="logo-word">Switchboard</span>}
    </span>
  );
}
