// One SIP OPTIONS request to a trunk (RFC 3261 11), to tell whether it answers. Written here:
// npm has no maintained SIP stack for Node that runs without a server of its own, and this
// needs a single request and the status line of its answer.
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect as tcpConnect, isIPv6, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { SipTransport } from '../../domain/sip-trunk-settings.ts';
import { tlsFailure, trunkTlsOptions, type TrunkTrust } from './trunk-tls.ts';

/** A trunk answered (with its final status), or why it did not. */
export type ProbeResult =
  { answered: true; code: number; reason: string } | { answered: false; reason: string };

export interface ProbeTarget {
  host: string;
  port: number;
  transport: SipTransport;
}

/** How a TLS trunk's certificate is checked (trunk-tls.ts), as Kamailio's calls are. */
export type ProbeTrust = TrunkTrust;

const token = () => randomBytes(8).toString('hex');

function request(target: ProbeTarget, local: string): string {
  const host = isIPv6(target.host) ? `[${target.host}]` : target.host;
  const via = target.transport.toUpperCase();
  return [
    `OPTIONS sip:${host}:${target.port} SIP/2.0`,
    `Via: SIP/2.0/${via} ${local};branch=z9hG4bK${token()};rport`,
    'Max-Forwards: 70',
    `From: <sip:switchboard@${local}>;tag=${token()}`,
    `To: <sip:${host}:${target.port}>`,
    `Call-ID: ${token()}@switchboard`,
    'CSeq: 1 OPTIONS',
    'Accept: application/sdp',
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

/** The first final status line in `text` (1xx answers only say it is being worked on). */
function finalStatus(text: string): { code: number; reason: string } | null {
  for (const match of text.matchAll(/^SIP\/2\.0 (\d{3}) ([^\r\n]*)/gm)) {
    const code = Number(match[1]);
    if (code >= 200) return { code, reason: match[2]!.trim() };
  }
  return null;
}

function overUdp(target: ProbeTarget, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const socket = createSocket(isIPv6(target.host) ? 'udp6' : 'udp4');
    let settled = false;
    const done = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.close();
      resolve(result);
    };
    // UDP may lose the request: sent again at 500 ms, 1 s, 2 s (RFC 3261 17.1.2.2) until the timeout.
    const resend: NodeJS.Timeout[] = [];
    const timer = setTimeout(() => {
      resend.forEach(clearTimeout);
      done({ answered: false, reason: `no answer to OPTIONS within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      resend.forEach(clearTimeout);
      // A connected UDP socket hears ICMP "port unreachable": nothing listens there.
      const unreachable = error.code === 'ECONNREFUSED';
      done({ answered: false, reason: unreachable ? 'port unreachable' : error.message });
    });
    socket.on('message', (message) => {
      const status = finalStatus(message.toString('latin1'));
      if (!status) return;
      resend.forEach(clearTimeout);
      done({ answered: true, ...status });
    });
    // Connected, so the system picks the local address the trunk can answer to (the Via).
    socket.connect(target.port, target.host, () => {
      const { address, port } = socket.address();
      const local = isIPv6(address) ? `[${address}]` : address;
      const text = Buffer.from(request(target, `${local}:${port}`));
      const send = () => socket.send(text);
      send();
      for (const at of [500, 1500, 3500]) if (at < timeoutMs) resend.push(setTimeout(send, at));
    });
  });
}

function overStream(
  target: ProbeTarget,
  timeoutMs: number,
  trust: ProbeTrust,
): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const options = { host: target.host, port: target.port, timeout: timeoutMs };
    const socket: Socket =
      target.transport === 'tls'
        ? tlsConnect(trunkTlsOptions(target.host, target.port, timeoutMs, trust))
        : tcpConnect(options);
    let text = '';
    let settled = false;
    const done = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => done({ answered: false, reason: `no answer to OPTIONS within ${timeoutMs / 1000} s` }),
      timeoutMs,
    );
    socket.on(target.transport === 'tls' ? 'secureConnect' : 'connect', () => {
      socket.write(request(target, `${socket.localAddress}:${socket.localPort}`));
    });
    socket.on('data', (chunk: Buffer) => {
      text = (text + chunk.toString('latin1')).slice(-16_384);
      const status = finalStatus(text);
      if (status) done({ answered: true, ...status });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const reason = target.transport === 'tls' ? tlsFailure(error) : error.message;
      done({ answered: false, reason });
    });
    socket.on('close', () => done({ answered: false, reason: 'the trunk closed the connection' }));
  });
}

/** Sends OPTIONS to the trunk and waits at most `timeoutMs` for its final answer. */
export function probeTrunk(
  target: ProbeTarget,
  timeoutMs: number,
  trust: ProbeTrust = {},
): Promise<ProbeResult> {
  return target.transport === 'udp'
    ? overUdp(target, timeoutMs)
    : overStream(target, timeoutMs, trust);
}

/**
 * Whether an answer means the trunk takes calls: any 2xx; a challenge (401, 407) or "OPTIONS
 * not supported" (405, 501) also come from a live peer. Anything else refuses us.
 */
export function isUp(result: ProbeResult): boolean {
  if (!result.answered) return false;
  return (result.code >= 200 && result.code < 300) || [401, 407, 405, 501].includes(result.code);
}
