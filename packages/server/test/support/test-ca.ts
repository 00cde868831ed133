// A certificate authority for tests, made with Debian's openssl: a carrier's certificates that
// a trusted CA issued, naming its host or another one.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestCertificate } from './receiver.ts';

export interface TestCa {
  /** The CA's own certificate (PEM), for a CA file that trusts what it issues. */
  cert: string;
  /** A certificate for `subjectAltName` (e.g. "DNS:localhost,IP:127.0.0.1"), CN `cn`. */
  issue(subjectAltName: string, cn?: string): TestCertificate;
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-ca-'));
  try {
    const key = join(dir, 'ca-key.pem');
    const cert = join(dir, 'ca.pem');
    openssl([
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=Test Carrier CA'],
      ...['-addext', 'basicConstraints=critical,CA:TRUE', '-days', '1'],
      ...['-keyout', key, '-out', cert],
    ]);
    const ca = { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
    let serial = 0;
    return {
      cert: ca.cert,
      issue(subjectAltName: string, cn = 'carrier') {
        const work = mkdtempSync(join(tmpdir(), 'switchboard-ca-'));
        try {
          writeFileSync(join(work, 'ca.pem'), ca.cert);
          writeFileSync(join(work, 'ca-key.pem'), ca.key);
          writeFileSync(join(work, 'ext.cnf'), `subjectAltName=${subjectAltName}\n`);
          const [leafKey, csr, leaf] = ['key.pem', 'req.pem', 'cert.pem'].map((f) => join(work, f));
          openssl([
            ...['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`],
            ...['-keyout', leafKey!, '-out', csr!],
          ]);
          openssl([
            ...['x509', '-req', '-in', csr!, '-CA', join(work, 'ca.pem')],
            ...['-CAkey', join(work, 'ca-key.pem'), '-set_serial', String(++serial)],
            ...['-extfile', join(work, 'ext.cnf'), '-days', '1', '-out', leaf!],
          ]);
          return { cert: readFileSync(leaf!, 'utf8'), key: readFileSync(leafKey!, 'utf8') };
        } finally {
          rmSync(work, { recursive: true, force: true });
        }
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
