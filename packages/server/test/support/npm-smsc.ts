// The same SMSC as smsc.pl, on npm's `smpp` server (in this process): the second, unrelated
// SMSC implementation the ESME is tested against. Same options, commands and event log.
import smpp, { type PDU, type Server, type Session } from 'smpp';
import { EventLog, type SmscCommand, type SmscOptions, type SmscPeer } from './smsc-peer.ts';

// npm's smpp decodes short_message and message_payload into text by its own rules; the
// log wants the octets the ESME sent, so the decoding filters are taken off.
for (const command of ['submit_sm', 'deliver_sm', 'data_sm']) {
  const field = smpp.commands[command]?.params?.short_message;
  if (field) delete field.filter;
}
if (smpp.tlvs.message_payload) delete smpp.tlvs.message_payload.filter;

const STATE_OF: Record<string, number> = {
  ENROUTE: 1,
  DELIVRD: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIV: 5,
  ACCEPTD: 6,
  UNKNOWN: 7,
  REJECTD: 8,
};

interface Conn {
  session: Session;
  mode: string;
  bound: boolean;
  since: number;
}

const hex = (value: unknown) => (Buffer.isBuffer(value) ? value.toString('hex') : null);

function yymmddhhmm(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getFullYear() % 100)}${two(date.getMonth() + 1)}${two(date.getDate())}${two(date.getHours())}${two(date.getMinutes())}`;
}

/** Starts npm's smpp server on `options.port` (0: any free port). */
export async function startNpmSmsc(options: SmscOptions = {}): Promise<SmscPeer> {
  const log = new EventLog();
  const conns = new Set<Conn>();
  const control = { throttle: 0, throttleStatus: 0x58, silent: 0, hold: false };
  let held: [Conn, PDU, number][] = [];
  let nextId = 1_000_000;
  let port = options.port ?? 0;
  let server: Server | null = null;

  const fmt = (n: number, how: 'dec' | 'hex' | undefined) =>
    how === 'hex' ? n.toString(16).toUpperCase() : String(n);
  const newest = (accept: (c: Conn) => boolean) =>
    [...conns].filter((c) => c.bound && accept(c)).sort((a, b) => b.since - a.since)[0];
  const receiver = () => newest((c) => c.mode !== 'bind_transmitter');

  const sendRequest = (conn: Conn, command: string, fields: Record<string, unknown>) => {
    const pdu = new smpp.PDU(command, fields);
    conn.session.send(pdu);
    return pdu.sequence_number;
  };

  const sendReceipt = (submit: PDU, n: number) => {
    if (options.receipt === 'none') return;
    const conn = receiver();
    if (!conn) return;
    const stat = options.stat ?? 'DELIVRD';
    const date = yymmddhhmm(new Date());
    const form = options.receipt ?? 'text';
    const fields: Record<string, unknown> = {
      source_addr_ton: submit.dest_addr_ton,
      source_addr_npi: submit.dest_addr_npi,
      source_addr: submit.destination_addr,
      dest_addr_ton: submit.source_addr_ton,
      dest_addr_npi: submit.source_addr_npi,
      destination_addr: submit.source_addr,
      esm_class: 0x04,
      short_message: Buffer.alloc(0),
    };
    if (form === 'text' || form === 'both') {
      const ok = stat === 'DELIVRD';
      const text = `id:${fmt(n, options.receiptIds)} sub:001 dlvrd:${ok ? '001' : '000'} submit date:${date} done date:${date} stat:${stat} err:${ok ? '000' : '001'} text:`;
      fields.short_message = Buffer.from(text, 'latin1');
    }
    if (form === 'tlv' || form === 'both') {
      fields.receipted_message_id = fmt(n, options.respIds);
      fields.message_state = STATE_OF[stat] ?? 7;
    }
    const seq = sendRequest(conn, 'deliver_sm', fields);
    log.push({
      event: 'sent',
      command: 'deliver_sm',
      kind: 'receipt',
      seq,
      message_id: fmt(n, options.respIds),
    });
  };

  const answerSubmit = (conn: Conn, pdu: PDU, n: number) => {
    const messageId = fmt(n, options.respIds);
    conn.session.send(pdu.response({ message_id: messageId }));
    log.push({
      event: 'sent',
      command: 'submit_sm_resp',
      seq: pdu.sequence_number,
      message_id: messageId,
    });
    sendReceipt(pdu, n);
  };

  const onSubmit = (conn: Conn, pdu: PDU) => {
    const entry = {
      event: 'pdu',
      command: 'submit_sm',
      seq: pdu.sequence_number,
      source_addr: pdu.source_addr,
      source_addr_ton: pdu.source_addr_ton,
      source_addr_npi: pdu.source_addr_npi,
      destination_addr: pdu.destination_addr,
      dest_addr_ton: pdu.dest_addr_ton,
      dest_addr_npi: pdu.dest_addr_npi,
      esm_class: pdu.esm_class,
      data_coding: pdu.data_coding,
      registered_delivery: pdu.registered_delivery,
      short_message: hex(pdu.short_message),
      message_payload: hex(pdu.message_payload),
    };
    if (control.silent > 0) {
      control.silent--;
      log.push({ ...entry, answer: 'none' });
    } else if (control.throttle > 0) {
      control.throttle--;
      log.push({ ...entry, answer: control.throttleStatus });
      conn.session.send(pdu.response({ command_status: control.throttleStatus }));
    } else if (control.hold) {
      log.push({ ...entry, answer: 'held' });
      held.push([conn, pdu, nextId++]);
    } else {
      log.push({ ...entry, answer: 0 });
      answerSubmit(conn, pdu, nextId++);
    }
  };

  const onPdu = (conn: Conn, pdu: PDU) => {
    const seq = pdu.sequence_number;
    switch (pdu.command) {
      case 'bind_transceiver':
      case 'bind_transmitter':
      case 'bind_receiver': {
        const status =
          pdu.system_id !== (options.systemId ?? 'test')
            ? 0x0f
            : pdu.password !== (options.password ?? 'secret')
              ? 0x0e
              : 0;
        conn.session.send(pdu.response({ command_status: status, system_id: 'npm-smsc' }));
        log.push({
          event: 'pdu',
          command: pdu.command,
          seq,
          system_id: pdu.system_id,
          interface_version: pdu.interface_version,
          answer: status,
        });
        if (status === 0)
          Object.assign(conn, { bound: true, mode: pdu.command, since: Date.now() });
        return;
      }
      case 'submit_sm':
        return onSubmit(conn, pdu);
      case 'enquire_link':
        log.push({ event: 'pdu', command: 'enquire_link', seq });
        conn.session.send(pdu.response());
        return;
      case 'unbind':
        log.push({ event: 'pdu', command: 'unbind', seq });
        conn.session.send(pdu.response());
        conn.session.close();
        return;
      case 'deliver_sm_resp':
      case 'enquire_link_resp':
      case 'unbind_resp':
      case 'generic_nack':
      case 'data_sm_resp':
        log.push({ event: 'pdu', command: pdu.command, seq, status: pdu.command_status });
        return;
      default:
        log.push({ event: 'pdu', command: pdu.command, seq });
        conn.session.send(pdu.response({ command_status: 0x03 }));
    }
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const created = smpp.createServer({}, (session) => {
        const conn: Conn = { session, mode: '', bound: false, since: 0 };
        conns.add(conn);
        log.push({ event: 'connected' });
        session.on('pdu', (pdu: PDU) => onPdu(conn, pdu));
        session.on('error', () => {}); // a reset connection; 'close' follows
        session.on('close', () => {
          if (!conns.delete(conn)) return;
          held = held.filter(([c]) => c !== conn);
          log.push({ event: 'disconnected' });
        });
      });
      created.once('error', reject);
      created.listen(port, '127.0.0.1', () => {
        const address = created.address();
        port = typeof address === 'object' && address ? address.port : port;
        server = created;
        log.push({ event: 'listening', port });
        resolve();
      });
    });

  const close = async () => {
    const current = server;
    server = null;
    for (const conn of conns) conn.session.socket.destroy();
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  };

  const runCommand = (c: SmscCommand) => {
    switch (c.cmd) {
      case 'throttle':
        control.throttle = Number(c.count ?? 1);
        control.throttleStatus = Number(c.status ?? 0x58);
        return;
      case 'silent':
        control.silent = Number(c.count ?? 1);
        return;
      case 'hold':
        control.hold = true;
        return;
      case 'release':
        control.hold = false;
        for (const [conn, pdu, n] of held.splice(0)) answerSubmit(conn, pdu, n);
        return;
      case 'close':
        for (const conn of conns) conn.session.socket.destroy();
        return;
    }
    const conn = c.cmd === 'mo' ? receiver() : newest(() => true);
    if (!conn) {
      log.push({ event: 'no_connection', cmd: c.cmd });
      return;
    }
    let seq: number;
    if (c.cmd === 'mo') {
      const fields: Record<string, unknown> = {
        source_addr_ton: c.source_ton ?? 1,
        source_addr_npi: 1,
        source_addr: c.source,
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        destination_addr: c.dest,
        esm_class: c.esm_class ?? 0,
        data_coding: c.data_coding ?? 0,
        short_message: Buffer.from(String(c.hex ?? ''), 'hex'),
      };
      if (c.payload_hex !== undefined)
        fields.message_payload = Buffer.from(String(c.payload_hex), 'hex');
      if (Array.isArray(c.sar)) {
        [fields.sar_msg_ref_num, fields.sar_total_segments, fields.sar_segment_seqnum] = c.sar;
      }
      seq = sendRequest(conn, 'deliver_sm', fields);
    } else if (c.cmd === 'enquire_link' || c.cmd === 'unbind') {
      seq = sendRequest(conn, c.cmd, {});
    } else if (c.cmd === 'raw') {
      seq = Number(c.seq);
      conn.session.socket.write(Buffer.from(String(c.hex), 'hex'));
    } else if (c.cmd === 'unknown' || c.cmd === 'garbage') {
      seq = c.cmd === 'unknown' ? 77 : 78;
      const raw = Buffer.alloc(16);
      // garbage: command_length 8, under the 16-octet header, so the stream cannot be framed.
      raw.writeUInt32BE(c.cmd === 'unknown' ? 16 : 8, 0);
      raw.writeUInt32BE(c.cmd === 'unknown' ? Number(c.command_id ?? 0x99) : 0x15, 4);
      raw.writeUInt32BE(seq, 12);
      conn.session.socket.write(raw);
    } else {
      log.push({ event: 'bad_command', line: JSON.stringify(c) });
      return;
    }
    log.push({ event: 'sent', command: c.cmd, seq, tag: c.tag });
  };

  const command = async (c: SmscCommand) => {
    runCommand(c);
    log.push({ event: 'done', id: c.id });
  };

  await listen();
  return {
    name: 'npm smpp',
    get port() {
      return port;
    },
    events: log.events,
    command,
    waitFor: (what, accept, timeoutMs, from) => log.waitFor(what, accept, timeoutMs, from),
    received: (c) => log.received(c),
    kill: close,
    restart: async () => {
      await close();
      await listen();
    },
    stop: close,
  };
}
