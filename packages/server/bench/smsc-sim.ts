// The SMSC of `npm run bench -- --smpp`: npm's `smpp` server in a process of its own, which
// binds anyone, answers every submit_sm at once and sends its receipt (DELIVRD, Appendix B
// text) right after. It counts, per system_id, the submit_sm it took each second and the most
// it ever held unanswered (the ESME's window, seen from here). Prints {"port":N}; answers
// {type:'stats'} over IPC, with the receipts the ESME has answered.
import smpp, { type PDU, type Session } from 'smpp';

interface Counts {
  submits: number;
  /** submit_sm per whole second since the first. */
  perSecond: Map<number, number>;
  outstanding: number;
  maxOutstanding: number;
  /** deliver_sm_resp taken: receipts the ESME has applied. */
  receiptsAnswered: number;
}

const counts = new Map<string, Counts>();
const countsOf = (systemId: string) => {
  let c = counts.get(systemId);
  if (!c)
    counts.set(
      systemId,
      (c = {
        submits: 0,
        perSecond: new Map(),
        outstanding: 0,
        maxOutstanding: 0,
        receiptsAnswered: 0,
      }),
    );
  return c;
};
let nextId = 1;

function yymmddhhmm(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getFullYear() % 100)}${two(date.getMonth() + 1)}${two(date.getDate())}${two(date.getHours())}${two(date.getMinutes())}`;
}

const server = smpp.createServer({}, (session: Session) => {
  // Answering at once means no Nagle: with it, a receipt written right behind its
  // submit_sm_resp waits for the ESME's delayed ACK (40 ms on Linux).
  session.socket.setNoDelay(true);
  let systemId = '?';
  const bind = (pdu: PDU) => {
    systemId = String(pdu.system_id);
    session.send(pdu.response());
  };
  session.on('bind_transceiver', bind);
  session.on('bind_transmitter', bind);
  session.on('bind_receiver', bind);
  session.on('enquire_link', (pdu: PDU) => session.send(pdu.response()));
  session.on('unbind', (pdu: PDU) => {
    session.send(pdu.response());
    session.close();
  });
  session.on('deliver_sm_resp', () => countsOf(systemId).receiptsAnswered++);
  session.on('error', () => {});
  session.on('submit_sm', (pdu: PDU) => {
    const c = countsOf(systemId);
    c.submits++;
    const second = Math.floor(Date.now() / 1000);
    c.perSecond.set(second, (c.perSecond.get(second) ?? 0) + 1);
    c.outstanding++;
    c.maxOutstanding = Math.max(c.maxOutstanding, c.outstanding);
    // Answered in the same turn as every request that arrived with it: what was read
    // together counts as outstanding together.
    setImmediate(() => {
      c.outstanding--;
      const id = String(nextId++);
      session.send(pdu.response({ message_id: id }));
      const date = yymmddhhmm(new Date());
      session.send(
        new smpp.PDU('deliver_sm', {
          source_addr_ton: pdu.dest_addr_ton,
          source_addr_npi: pdu.dest_addr_npi,
          source_addr: pdu.destination_addr,
          dest_addr_ton: pdu.source_addr_ton,
          dest_addr_npi: pdu.source_addr_npi,
          destination_addr: pdu.source_addr,
          esm_class: 0x04,
          short_message: `id:${id} sub:001 dlvrd:001 submit date:${date} done date:${date} stat:DELIVRD err:000 text:`,
        }),
      );
    });
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
});

process.on('message', (m: { type: string }) => {
  if (m.type !== 'stats') return;
  process.send!({
    type: 'stats',
    stats: Object.fromEntries(
      [...counts].map(([id, c]) => [
        id,
        {
          submits: c.submits,
          perSecond: [...c.perSecond.values()],
          maxOutstanding: c.maxOutstanding,
          receiptsAnswered: c.receiptsAnswered,
        },
      ]),
    ),
  });
});
