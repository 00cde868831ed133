// `switchboard serve` with voice listens for SIP over TLS on the port its banner names, with
// the operator's certificate (SWITCHBOARD_VOICE_TLS_CERT/_KEY) or a self-signed one for its
// host, and checks TLS trunks against the system's CAs and SWITCHBOARD_VOICE_TLS_CA. The
// storage engine plays no part: SQLite alone.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, type TestDatabase } from '../support/engines.ts';
import {
  createAccountWithCli,
  runCli,
  startServe,
  type ServeProcess,
} from '../support/processes.ts';
import { makeTestCertificate } from '../support/receiver.ts';
import { startTlsTrunk } from '../support/tls-trunk.ts';

const dir = mkdtempSync(join(tmpdir(), 'voice-tls-serve-'));

/** The TLS port the banner names, once its voice line is out (polled for at most 15 s). */
async function tlsPort(serve: ServeProcess): Promise<number> {
  for (let i = 0; i < 150; i++) {
    const port = /voice +on: .*TLS 127\.0\.0\.1:(\d+)/.exec(serve.stdout())?.[1];
    if (port) return Number(port);
    await sleep(100);
  }
  assert.fail(`no TLS port in the banner:\n${serve.stdout()}\n${serve.stderr()}`);
}

/** The certificate Kamailio presents on `port`, checked against `ca` when given. */
function presented(port: number, ca?: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const trust = ca ? { ca } : { rejectUnauthorized: false };
    const socket = connect({ host: '127.0.0.1', port, ...trust }, () => {
      resolve(socket.getPeerCertificate());
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

describe('SIP over TLS under switchboard serve', () => {
  const databases: TestDatabase[] = [];
  after(async () => {
    await Promise.all(databases.map((database) => database.drop()));
    rmSync(dir, { recursive: true, force: true });
  });

  async function serve(env: Record<string, string> = {}) {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    const env_ = { ...database.env, SWITCHBOARD_LOG_LEVEL: 'error', ...env };
    return { server: await startServe({ ...env_, SWITCHBOARD_VOICE: 'on' }), env: env_ };
  }

  test("Kamailio presents the operator's SWITCHBOARD_VOICE_TLS_CERT on the banner's TLS port", async () => {
    const certificate = makeTestCertificate();
    writeFileSync(join(dir, 'cert.pem'), certificate.cert);
    writeFileSync(join(dir, 'key.pem'), certificate.key);
    const { server } = await serve({
      SWITCHBOARD_VOICE_TLS_CERT: join(dir, 'cert.pem'),
      SWITCHBOARD_VOICE_TLS_KEY: join(dir, 'key.pem'),
    });
    try {
      // Checked against the operator's certificate alone: no other would pass.
      const peer = await presented(await tlsPort(server), certificate.cert);
      assert.match(peer.subjectaltname ?? '', /IP Address:127\.0\.0\.1/);
    } finally {
      await server.stop();
    }
  });

  test('without one, Kamailio makes a self-signed certificate for its host', async () => {
    const { server } = await serve();
    try {
      const peer = await presented(await tlsPort(server));
      assert.equal(peer.subject.CN, 'switchboard');
      assert.deepEqual(peer.issuer, peer.subject);
      assert.equal(peer.subjectaltname, 'IP Address:127.0.0.1');
    } finally {
      await server.stop();
    }
  });

  test('a TLS trunk is up when SWITCHBOARD_VOICE_TLS_CA trusts its certificate, failed saying why when nothing does', async () => {
    const trusted = await startTlsTrunk();
    const stranger = await startTlsTrunk();
    writeFileSync(join(dir, 'carrier-ca.pem'), trusted.cert);
    const { server, env } = await serve({
      SWITCHBOARD_VOICE_TLS_CA: join(dir, 'carrier-ca.pem'),
      SWITCHBOARD_TRUNK_CHECK_SECONDS: '1',
    });
    try {
      const account = await createAccountWithCli(env, 'TLS trunks');
      for (const port of [trusted.tlsPort, stranger.tlsPort]) {
        const run = await runCli(
          [
            ...['carriers', 'add', '--account', account.id, '--type', 'sip'],
            ...['--host', '127.0.0.1', '--port', String(port), '--transport', 'tls'],
          ],
          env,
        );
        assert.equal(run.code, 0, run.stderr);
      }
      let listed = '';
      for (let i = 0; i < 100; i++) {
        listed = (await runCli(['carriers', 'list', '--account', account.id], env)).stdout;
        if ((listed.match(/ tls +(up|failed)/g) ?? []).length === 2) break;
        await sleep(200);
      }
      assert.match(listed, new RegExp(`127\\.0\\.0\\.1:${trusted.tlsPort} +tls +up`));
      assert.match(
        listed,
        new RegExp(
          `127\\.0\\.0\\.1:${stranger.tlsPort} +tls +failed +\\(TLS certificate not trusted: self-signed certificate\\)$`,
          'm',
        ),
      );
    } finally {
      await server.stop();
      await trusted.stop();
      await stranger.stop();
    }
  });
});
