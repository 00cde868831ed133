// Accepted live sends are never lost: `switchboard serve` SIGKILLed while the SMSC holds its
// submissions unanswered, started again, delivers or fails every one of them. Nor is a part of
// a handset's long text that was acknowledged before the crash. The submissions
// lost with the process are taken again when their dispatcher lease (60 s) runs out, over the
// bind the new process takes once the dead one's lease (15 s) has.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { ApiClient } from '../support/http.ts';
import { eventsOf, waitFor } from '../support/messaging.ts';
import { openStore } from '../../src/store/store.ts';
import {
  freePort,
  jsonOutput,
  runCli,
  startServe,
  type ServeProcess,
} from '../support/processes.ts';
import { startPerlSmsc, type SmscPeer } from '../support/smsc-peer.ts';

const LINE = '+14155550998';
const HANDSET = '+447700900555';
const SENDS = 6;

/** Part `seq` of a two-part GSM text from the handset, as the SMSC delivers it. */
const moPart = (seq: number, text: string) => ({
  cmd: 'mo',
  source: HANDSET.slice(1),
  dest: LINE.slice(1),
  esm_class: 0x40,
  hex: Buffer.concat([Buffer.from([5, 0, 3, 0x2a, 2, seq]), Buffer.from(text)]).toString('hex'),
});

describe('live sends survive a crash with submits in flight', { concurrency: true }, () => {
  for (const engine of ENGINES) {
    describe(engine, () => {
      let database: TestDatabase;
      let peer: SmscPeer;
      const servers: ServeProcess[] = [];

      before(async () => {
        database = await createTestDatabase(engine);
        peer = await startPerlSmsc({ port: await freePort() });
      });
      after(async () => {
        for (const server of servers) {
          server.child.kill('SIGKILL');
          await server.exited;
        }
        await peer?.stop();
        await database?.drop();
      });

      test('every accepted live message ends delivered or failed after a SIGKILL and a restart', async () => {
        const env = { ...database.env, SWITCHBOARD_LOG_LEVEL: 'silent' };
        const cli = async (args: string[]) => {
          const result = await runCli([...args, '--json'], env);
          assert.equal(result.code, 0, `${args.join(' ')}: ${result.stdout} ${result.stderr}`);
          return jsonOutput(result);
        };
        const account = await cli(['accounts', 'create', '--name', 'Crash live']);
        const carrier = await cli([
          'carriers',
          'add',
          '--account',
          account.id,
          '--type',
          'smpp',
          '--host',
          '127.0.0.1',
          '--port',
          String(peer.port),
          '--system-id',
          'test',
          '--password',
          'secret',
        ]);
        await cli([
          'numbers',
          'add',
          '--account',
          account.id,
          '--mode',
          'live',
          LINE,
          '--carrier',
          carrier.id,
        ]);
        const key = await cli(['keys', 'create', '--account', account.id, '--mode', 'live']);

        const first = await startServe(env);
        servers.push(first);
        let client = new ApiClient(first.url, key.secret);
        await waitFor(
          async () => (peer.received('bind_transceiver').length > 0 ? true : undefined),
          'the first bind',
          { timeoutMs: 15_000, intervalMs: 100 },
        );
        // The first half of a long text from a handset, acknowledged before the crash.
        await peer.command(moPart(1, 'Kept across '));
        await waitFor(
          async () => (peer.received('deliver_sm_resp').length > 0 ? true : undefined),
          'the first part acknowledged',
          { timeoutMs: 15_000, intervalMs: 50 },
        );
        // The SMSC takes the submissions and answers none of them before the crash.
        await peer.command({ cmd: 'hold' });
        const ids: string[] = [];
        for (let i = 0; i < SENDS; i++) {
          const res = await client.post('/v1/messages', {
            from: LINE,
            to: `+44770090${String(1000 + i)}`,
            body: `in flight ${i}`,
          });
          assert.equal(res.status, 201, res.text);
          ids.push(res.body.id);
        }
        await waitFor(
          async () => (peer.received('submit_sm').length >= SENDS ? true : undefined),
          'every submission in flight',
          { timeoutMs: 15_000, intervalMs: 50 },
        );
        first.child.kill('SIGKILL');
        assert.equal((await first.exited).signal, 'SIGKILL');
        // The SMSC restarts too, holding nothing: answers for the dead connection would go
        // nowhere (and writing them raced the kernel's reset of that socket).
        await peer.kill();
        await peer.restart();

        const second = await startServe(env);
        servers.push(second);
        client = new ApiClient(second.url, key.secret);
        for (const id of ids) {
          const done = await waitFor(
            async () => {
              const res = await client.get(`/v1/messages/${id}`);
              assert.equal(res.status, 200, res.text);
              return ['delivered', 'failed'].includes(res.body.status) ? res.body : undefined;
            },
            `${id} to end after the restart`,
            { timeoutMs: 200_000, intervalMs: 250 },
          );
          assert.equal(done.status, 'delivered', `${id}: ${JSON.stringify(done)}`);
        }
        // The second half, over the new bind (every send above left on it), completes the
        // text kept in the database.
        await peer.command(moPart(2, 'a crash'));
        const store = await openStore(database.options);
        try {
          const received = await waitFor(
            async () =>
              (await eventsOf(store.db, account.id, 'live', 'message.received')).find(
                (e) => e.data.from === HANDSET,
              ),
            'the whole text as message.received',
            { timeoutMs: 15_000, intervalMs: 100 },
          );
          assert.equal(received.data.body, 'Kept across a crash');
        } finally {
          await store.close();
        }
        const stopped = await second.stop();
        assert.equal(stopped.code, 0, second.stderr());
      });
    });
  }
});
