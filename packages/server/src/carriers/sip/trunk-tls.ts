// How Switchboard meets a SIP trunk over TLS, alike for its OPTIONS checks (options-probe.ts)
// and its calls (/voice/route asks before Kamailio connects): the certificate must lead to a
// trusted CA and name the trunk's host, as Node checks it (RFC 6125: a DNS name or IP address
// in subjectAltName, the CN only when there is none), and a host that is a name is sent as SNI.
import { isIP } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';

/** How a TLS trunk's certificate is checked: against these CAs (PEM), or Node's default ones. */
export interface TrunkTrust {
  ca?: string | string[] | null;
}

/** OpenSSL's and Node's codes for a certificate that is not trusted or not the host's. */
const CERTIFICATE_ERROR = /CERT|SIGNATURE|ISSUER|ALTNAME/;

/** The name a trunk's host is sent as by SNI: the host itself, unless it is an address. */
export function sniName(host: string): string | null {
  const bare = host.replace(/^\[|\]$/g, '');
  return isIP(bare) ? null : bare;
}

/** Node's options for a TLS connection to the trunk at `host:port`. */
export function trunkTlsOptions(
  host: string,
  port: number,
  timeoutMs: number,
  trust: TrunkTrust,
): ConnectionOptions {
  const servername = sniName(host);
  return {
    host: host.replace(/^\[|\]$/g, ''),
    port,
    timeout: timeoutMs,
    ...(servername ? { servername } : {}),
    ...(trust.ca ? { ca: trust.ca } : {}),
  };
}

/** Why a TLS connection failed, as the dashboard and Kamailio's log say it. */
export function tlsFailure(error: NodeJS.ErrnoException): string {
  if (error.code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `TLS certificate names another host: ${error.message}`;
  }
  // Without Node's advice on its own flags: the trunk's CA goes in SWITCHBOARD_VOICE_TLS_CA.
  return CERTIFICATE_ERROR.test(error.code ?? '')
    ? `TLS certificate not trusted: ${error.message.split(';')[0]}`
    : error.message;
}

/**
 * Opens a TLS connection to the trunk and closes it once the handshake has checked its
 * certificate; null when it passed, else why not (within `timeoutMs`).
 */
export function checkTrunkCertificate(
  target: { host: string; port: number },
  timeoutMs: number,
  trust: TrunkTrust,
): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect(trunkTlsOptions(target.host, target.port, timeoutMs, trust));
    let settled = false;
    const done = (reason: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(reason);
    };
    const timer = setTimeout(
      () => done(`no TLS handshake within ${timeoutMs / 1000} s`),
      timeoutMs,
    );
    socket.once('secureConnect', () => done(null));
    socket.once('error', (error: NodeJS.ErrnoException) => done(tlsFailure(error)));
    socket.once('close', () => done('the trunk closed the connection'));
  });
}
