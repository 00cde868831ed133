import { formatPhone } from '../../lib/format.ts';
import { useSession } from '../../lib/session.tsx';

/** A per-line view of the inbox: all lines, or the threads of one of the account's numbers. */
export function LineFilter(props: { value: string; onChange(line: string): void }) {
  const { numbers } = useSession();
  if (numbers.length < 2) return null;
  return (
    <select
      className="line-filter"
      aria-label="Line"
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
    >
      <option value="">All lines</option>
      {numbers.map((n) => (
        <option key={n} value={n}>
          {formatPhone(n)}
        </option>
      ))}
    </select>
  );
}
