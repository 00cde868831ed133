import { formatDateTime, formatPhone } from '../../lib/format.ts';
import { useSession } from '../../lib/session.tsx';
import type { ListOf, OptOut, PhoneNumber } from '../../lib/types.ts';
import { useResource } from '../../lib/use-resource.ts';

/** The account's numbers in this mode, and the numbers that texted STOP to any of them. */
export function NumbersSection() {
  const { api, mode } = useSession();
  const numbers = useResource(() => api.get<ListOf<PhoneNumber>>('/numbers'), mode);
  const optOuts = useResource(() => api.get<ListOf<OptOut>>('/opt-outs'), mode);

  return (
    <div className="dashboard-grid even">
      <section className="card" aria-labelledby="numbers-title">
        <h2 id="numbers-title">Numbers</h2>
        <p className="muted">
          {mode === 'test'
            ? 'Sandbox numbers: texts from them never leave the platform and cost nothing.'
            : 'Numbers that send real texts. Add more with switchboard numbers add.'}
        </p>
        {numbers.error && <p className="form-error">{numbers.error}</p>}
        <ul className="plain-list" aria-label="Numbers">
          {numbers.data?.data.map((n, i) => (
            <li key={n.id}>
              <span className="mono">{formatPhone(n.phone)}</span>
              <span className="muted">
                {i === 0 ? 'Default line · ' : ''}added {formatDateTime(n.createdAt)}
              </span>
            </li>
          ))}
          {numbers.data?.data.length === 0 && <li className="muted">No {mode} numbers.</li>}
        </ul>
      </section>
      <section className="card" aria-labelledby="optouts-title">
        <h2 id="optouts-title">Opt-out list</h2>
        <p className="muted">
          These numbers texted STOP (or UNSUBSCRIBE, CANCEL, END, QUIT). Nothing is sent to them
          from any of your numbers until they text START.
        </p>
        {optOuts.error && <p className="form-error">{optOuts.error}</p>}
        <ul className="plain-list" aria-label="Opted-out numbers">
          {optOuts.data?.data.map((o) => (
            <li key={o.phone}>
              <span className="mono">{formatPhone(o.phone)}</span>
              <span className="muted">since {formatDateTime(o.optedOutAt)}</span>
            </li>
          ))}
          {optOuts.data?.data.length === 0 && <li className="muted">Nobody has opted out.</li>}
        </ul>
      </section>
    </div>
  );
}
