// The CAs a SIP trunk's TLS certificate must lead to, one set for Kamailio (the calls) and
// Node (the OPTIONS checks), so both judge a trunk alike.
import { existsSync, readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

/** Debian's bundle of the system's CAs (package ca-certificates). */
const SYSTEM_CAS = '/etc/ssl/certs/ca-certificates.crt';

/** The system's CAs and those of the operator's PEM file `extra` (if any), as PEM. */
export function trustedCas(extra: string | null): string {
  // Where Debian's bundle is absent, Node's own copy of Mozilla's, which it is made from.
  const system = existsSync(SYSTEM_CAS)
    ? readFileSync(SYSTEM_CAS, 'utf8')
    : rootCertificates.join('\n');
  return system + (extra ? `\n${readFileSync(extra, 'utf8')}` : '');
}
