// The state of SIP trunks: each is asked with OPTIONS, and shows `up`, or `failed` with why:
// no answer, or the status it refused with. sipp plays the trunks, over UDP and TCP; Kamailio
// plays them over TLS, its certificate trusted or not.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import { TrunkChecks } from '../../src/carriers/sip/trunk-checks.ts';
import { addCarrier } from '../../src/commands/add-carrier.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { listCarrierViews } from '../../src/queries/carriers.ts';
import { accountScoped } from '../../src/store/scope.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { freePort } from '../support/processes.ts';
import { startTlsTrunk } from '../support/tls-trunk.ts';
import { startSippServer } from '../support/voice-trunk.ts';

for (const engine of ENGINES) {
  describe(`SIP trunk checks [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    const clock = { now: Date.now };

    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount('Trunk checks');
    });
    after(() => t.close());

    async function trunk(settings: Record<string, unknown>): Promise<string> {
      const seal = (s: string) => t.secrets.seal(s);
      const made = await t.store.write((tx) =>
        addCarrier(tx, acct.accountId, { type: 'sip', ...settings }, { clock, seal }),
      );
      return made.id;
    }

    async function stateOf(id: string) {
      const views = await listCarrierViews(accountScoped(t.store.db, acct.accountId), clock.now());
      const view = views.find((v) => v.id === id)!;
      return [view.status, view.lastError];
    }

    test('a trunk is "checking" until asked, then "up" when it answers OPTIONS 200 (UDP and TCP)', async () => {
      const udp = await startSippServer('options-ok');
      const tcp = await startSippServer('options-ok', { transport: 'tcp' });
      const overUdp = await trunk({ host: '127.0.0.1', port: udp.port });
      const overTcp = await trunk({ host: '127.0.0.1', port: tcp.port, transport: 'tcp' });
      assert.deepEqual(await stateOf(overUdp), ['checking', null]);
      const checks = new TrunkChecks({ store: t.store, clock, logger: createLogger('silent') });
      try {
        await checks.checkOnce();
        assert.deepEqual(await stateOf(overUdp), ['up', null]);
        assert.deepEqual(await stateOf(overTcp), ['up', null]);
      } finally {
        await checks.stop();
      }
      assert.equal((await udp.done).code, 0);
      assert.equal((await tcp.done).code, 0);
      // Its checker stopped: nobody holds the trunk, and it says so.
      assert.equal((await stateOf(overUdp))[0], 'stopped');
    });

    test('a failed trunk says why: the status it refused with, no answer in time, or nothing there', async () => {
      const refusing = await startSippServer('options-refuse');
      const refused = await trunk({ host: '127.0.0.1', port: refusing.port });
      // A peer that takes the request and never answers.
      const mute = createSocket('udp4');
      await new Promise<void>((resolve) => mute.bind(0, '127.0.0.1', resolve));
      const silent = await trunk({ host: '127.0.0.1', port: mute.address().port });
      const absent = await trunk({ host: '127.0.0.1', port: await freePort() });
      const checks = new TrunkChecks({
        store: t.store,
        clock,
        logger: createLogger('silent'),
        timeoutMs: 1000,
      });
      try {
        await checks.checkOnce();
        assert.deepEqual(await stateOf(refused), ['failed', 'refused OPTIONS: 403 Forbidden']);
        assert.deepEqual(await stateOf(silent), ['failed', 'no answer to OPTIONS within 1 s']);
        assert.deepEqual(await stateOf(absent), ['failed', 'port unreachable']);
      } finally {
        await checks.stop();
        mute.close();
      }
      assert.equal((await refusing.done).code, 0);
    });

    test('a TLS trunk is up over TLS when its certificate is trusted, failed saying so when it is not', async () => {
      const trusted = await startTlsTrunk();
      const stranger = await startTlsTrunk();
      try {
        const up = await trunk({ host: '127.0.0.1', port: trusted.tlsPort, transport: 'tls' });
        const untrusted = await trunk({
          host: '127.0.0.1',
          port: stranger.tlsPort,
          transport: 'tls',
        });
        // What the operator's SWITCHBOARD_VOICE_TLS_CA holds: the first trunk's certificate.
        const checks = new TrunkChecks({
          store: t.store,
          clock,
          logger: createLogger('silent'),
          ca: [trusted.cert],
        });
        try {
          await checks.checkOnce();
          assert.deepEqual(await stateOf(up), ['up', null]);
          assert.deepEqual(await stateOf(untrusted), [
            'failed',
            'TLS certificate not trusted: self-signed certificate',
          ]);
        } finally {
          await checks.stop();
        }
      } finally {
        await trusted.stop();
        await stranger.stop();
      }
    });
  });
}
