// A carrier reached over SIP-over-TLS, for tests: a second Kamailio ending TLS with its own
// self-signed certificate (sip/tls-trunk.cfg.tpl) in front of sipp on plain UDP, since
// Debian's sipp speaks no TLS.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../src/lib/logger.ts';
import { DEBIAN_KAMAILIO_MODULES } from '../../src/voice/kamailio-config.ts';
import { supervise } from '../../src/voice/supervisor.ts';
import { freePort } from './processes.ts';
import { makeTestCertificate, type TestCertificate } from './receiver.ts';

export interface TlsTrunk {
  /** Where Switchboard reaches the carrier: SIP over TLS. */
  tlsPort: number;
  /** Where the carrier's own side (sipp) sends calls toward Switchboard: UDP. */
  udpPort: number;
  /** Where calls from Switchboard are relayed to (sipp on UDP, started by the test). */
  carrierPort: number;
  /** Its certificate (PEM), for a CA file that trusts it. */
  cert: string;
  /** Its Kamailio's last lines of log: "over TLS: INVITE, SNI [name]" for each request. */
  log(): string;
  stop(): Promise<void>;
}

const TEMPLATE = join(import.meta.dirname, 'sip', 'tls-trunk.cfg.tpl');

/**
 * Starts the carrier's TLS edge with `certificate` (a new self-signed one unless given);
 * `switchboard` is `host:port` of Switchboard's TLS listener.
 */
export async function startTlsTrunk(
  options: {
    switchboard?: string;
    certificate?: TestCertificate;
    /** Clients must present a certificate this CA (PEM) issued: a trunk asking for mutual TLS. */
    clientCa?: string;
  } = {},
): Promise<TlsTrunk> {
  const dir = mkdtempSync(join(tmpdir(), 'tls-trunk-'));
  const [tlsPort, udpPort, carrierPort] = [await freePort(), await freePort(), await freePort()];
  const certificate = options.certificate ?? makeTestCertificate();
  writeFileSync(join(dir, 'cert.pem'), certificate.cert);
  writeFileSync(join(dir, 'key.pem'), certificate.key);
  const own = [`certificate = ${dir}/cert.pem`, `private_key = ${dir}/key.pem`];
  // Unless told, its clients' certificates, and Switchboard's self-signed one, are unchecked.
  const clients: string[] = [];
  if (options.clientCa) {
    writeFileSync(join(dir, 'clients.pem'), options.clientCa);
    clients.push('verify_certificate = yes', 'require_certificate = yes');
    clients.push(`ca_list = ${dir}/clients.pem`);
  }
  writeFileSync(
    join(dir, 'tls.cfg'),
    [
      '[server:default]',
      ...own,
      ...clients,
      '[client:default]',
      'verify_certificate = no',
      '',
    ].join('\n'),
  );
  const values: Record<string, string> = {
    TLS_PORT: String(tlsPort),
    UDP_PORT: String(udpPort),
    CARRIER_PORT: String(carrierPort),
    SWITCHBOARD: options.switchboard ?? '127.0.0.1:1',
    TLS_CONFIG: join(dir, 'tls.cfg'),
    MODULES: DEBIAN_KAMAILIO_MODULES,
  };
  const config = join(dir, 'kamailio.cfg');
  writeFileSync(
    config,
    readFileSync(TEMPLATE, 'utf8').replace(
      /\{\{([A-Z_]+)\}\}/g,
      (_, name: string) => values[name]!,
    ),
  );
  const kamailio = supervise(
    'tls trunk',
    '/usr/sbin/kamailio',
    ['-DD', '-E', '-f', config, '-Y', dir, '-P', join(dir, 'kamailio.pid')],
    createLogger(process.env.SWITCHBOARD_TEST_VOICE_LOG ?? 'silent'),
  );
  const stop = async () => {
    await kamailio.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  // Every 50 ms for at most 10 s, until its TLS port takes connections.
  for (let i = 0; i < 200; i++) {
    if (await accepts(tlsPort)) {
      const log = () => kamailio.lastLines();
      return { tlsPort, udpPort, carrierPort, cert: certificate.cert, log, stop };
    }
    await sleep(50);
  }
  const output = kamailio.lastLines();
  await stop();
  throw new Error(`the TLS trunk's Kamailio did not start within 10 s:\n${output}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
