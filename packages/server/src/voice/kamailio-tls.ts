// Kamailio's TLS (SIP trunks over `transport=tls`): its certificate, the CAs a trunk's
// certificate is checked against, and the tls module's configuration naming both.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { trustedCas } from '../lib/trusted-cas.ts';

/** `SWITCHBOARD_VOICE_TLS_*`: files the operator gives; null ones are made or defaulted. */
export interface VoiceTlsFiles {
  /** Kamailio's certificate chain (PEM); with `key`, or a self-signed one is made at start. */
  cert: string | null;
  key: string | null;
  /** CAs trusted for trunks' certificates besides the system's (PEM). */
  ca: string | null;
}

export const NO_VOICE_TLS_FILES: VoiceTlsFiles = { cert: null, key: null, ca: null };

/**
 * Writes into `dir` what Kamailio's tls module reads, and returns its configuration's path.
 * Trunks calling in are not asked for a certificate (they are trusted by address or digest
 * login, as over UDP); a trunk called is, and its chain must lead to a trusted CA, so a
 * trunk with a bad certificate fails the call rather than carrying it unchecked.
 */
export function writeKamailioTls(dir: string, host: string, files: VoiceTlsFiles): string {
  let cert = files.cert;
  let key = files.key;
  if (!cert || !key) {
    cert = join(dir, 'tls-cert.pem');
    key = join(dir, 'tls-key.pem');
    selfSigned(host, cert, key);
  }
  const cas = join(dir, 'tls-ca.pem');
  writeFileSync(cas, trustedCas(files.ca), { mode: 0o600 });
  const config = join(dir, 'tls.cfg');
  const common = ['method = TLSv1.2+', `certificate = ${cert}`, `private_key = ${key}`];
  writeFileSync(
    config,
    [
      '[server:default]',
      ...common,
      'verify_certificate = no',
      'require_certificate = no',
      '',
      '[client:default]',
      ...common,
      'verify_certificate = yes',
      'require_certificate = yes',
      `ca_list = ${cas}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return config;
}

/** A self-signed certificate for `host`, valid a year, made with Debian's openssl. */
function selfSigned(host: string, certPath: string, keyPath: string): void {
  const name = /^[\d.]+$|:/.test(host) ? `IP:${host}` : `DNS:${host}`;
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=switchboard'],
      ...['-addext', `subjectAltName=${name}`, '-days', '365'],
      ...['-keyout', keyPath, '-out', certPath],
    ],
    { stdio: 'ignore' },
  );
}
