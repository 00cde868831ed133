// A carrier connection with `--tls` reaches its SMSC over TLS, verifying the SMSC's
// certificate against the system's CAs and those NODE_EXTRA_CA_CERTS adds (how an operator
// trusts a carrier's private CA), and a live send through it is delivered.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../support/engines.ts';
import { ApiClient } from '../support/http.ts';
import { waitFor } from '../support/messaging.ts';
import {
  freePort,
  jsonOutput,
  runCli,
  startServe,
  type ServeProcess,
} from '../support/processes.ts';
import { startPerlSmsc, type SmscPeer } from '../support/smsc-peer.ts';
import { startTlsFront, type TlsFront } from '../support/tls-front.ts';

const LINE = '+14155550997';

describe('a live connection over TLS', () => {
  let database: TestDatabase;
  let peer: SmscPeer;
  let front: TlsFront;
  let server: ServeProcess | null = null;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-tls-'));

  before(async () => {
    database = await createTestDatabase('sqlite');
    peer = await startPerlSmsc({ port: await freePort() });
    front = await startTlsFront(peer.port);
  });
  after(async () => {
    await server?.stop();
    await front?.stop();
    await peer?.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('carriers add --tls binds through TLS to an SMSC the operator trusts, and a live send is delivered', async () => {
    const caFile = join(dir, 'carrier-ca.pem');
    writeFileSync(caFile, front.ca);
    const env = {
      ...database.env,
      SWITCHBOARD_LOG_LEVEL: 'silent',
      NODE_EXTRA_CA_CERTS: caFile,
    };
    const cli = async (args: string[]) => {
      const result = await runCli([...args, '--json'], env);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stdout} ${result.stderr}`);
      return jsonOutput(result);
    };
    const account = await cli(['accounts', 'create', '--name', 'TLS live']);
    const carrier = await cli([
      ...['carriers', 'add', '--account', account.id, '--type', 'smpp', '--tls'],
      ...['--host', '127.0.0.1', '--port', String(front.port)],
      ...['--system-id', 'test', '--password', 'secret'],
    ]);
    assert.equal(carrier.tls, true);
    await cli(['numbers', 'add', '--account', account.id, '--mode', 'live', LINE]);
    const key = await cli(['keys', 'create', '--account', account.id, '--mode', 'live']);

    server = await startServe(env);
    const client = new ApiClient(server.url, key.secret);
    const sent = await client.post('/v1/messages', {
      from: LINE,
      to: '+447700900321',
      body: 'over TLS',
    });
    assert.equal(sent.status, 201, sent.text);
    const done = await waitFor(
      async () => {
        const res = await client.get(`/v1/messages/${sent.body.id}`);
        return ['delivered', 'failed'].includes(res.body.status) ? res.body : undefined;
      },
      'the send to be delivered over TLS',
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    assert.equal(done.status, 'delivered', JSON.stringify(done));
    assert.equal(peer.received('submit_sm').length, 1);
  });
});
