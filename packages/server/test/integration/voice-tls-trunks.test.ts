// SIP trunks over TLS (`--transport tls`): a live call leaves over TLS, with the trunk's host
// name as SNI, to a trunk whose certificate is trusted and names it, and not to one whose
// certificate is not trusted or names another host: that call fails at once. A trunk's call
// over TLS rings the account's live softphones as over UDP. A second Kamailio plays the
// carrier's TLS edge (test/support/tls-trunk.ts), in front of sipp on UDP; sipp plays the
// softphones.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { addCarrier } from '../../src/commands/add-carrier.ts';
import { addNumber } from '../../src/commands/add-number.ts';
import { probeTrunk } from '../../src/carriers/sip/options-probe.ts';
import { issueSipCredentials } from '../../src/voice/ephemeral-credentials.ts';
import type { TestAccount } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { eventsOf } from '../support/messaging.ts';
import { makeTestCa, type TestCa } from '../support/test-ca.ts';
import { startTlsTrunk, type TlsTrunk } from '../support/tls-trunk.ts';
import { runSipp, startVoiceApp, type VoiceTestApp } from '../support/voice.ts';
import { startSippServer } from '../support/voice-trunk.ts';

const CALLED = '+12065550177';
/** Kamailio's ring timeout in these tests: a refused call is answered long before it. */
const RING_TIMEOUT_MS = 30_000;

for (const engine of ENGINES) {
  describe(`calls through SIP trunks over TLS [${engine}]`, () => {
    let t: VoiceTestApp;
    let trunk: TlsTrunk;
    let ca: TestCa;
    let line = 0;
    const dir = mkdtempSync(join(tmpdir(), 'voice-tls-'));

    before(async () => {
      // Switchboard trusts the carrier's CA, as an operator's CA file would make it.
      ca = makeTestCa();
      const caFile = join(dir, 'carrier-ca.pem');
      writeFileSync(caFile, ca.cert);
      t = await startVoiceApp(engine, {
        tls: { cert: null, key: null, ca: caFile },
        ringTimeoutMs: RING_TIMEOUT_MS,
      });
      trunk = await startTlsTrunk({
        switchboard: `127.0.0.1:${t.stack.tlsPort}`,
        certificate: ca.issue('DNS:localhost,IP:127.0.0.1', 'localhost'),
      });
    });
    after(async () => {
      await trunk?.stop();
      await t?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** A new account with a live number through a TLS trunk at `host:port`. */
    async function trunkedAccount(host: string, port: number) {
      const acct = await t.newAccount(`TLS trunk ${++line}`);
      const phone = `+1415555${String(3000 + line)}`;
      const clock = { now: Date.now };
      await t.store.write(async (tx) => {
        const seal = (s: string) => t.secrets.seal(s);
        const trunkSettings = { type: 'sip', host, port, transport: 'tls' };
        const car = await addCarrier(tx, acct.accountId, trunkSettings, { clock, seal });
        await addNumber(
          tx,
          { accountId: acct.accountId, mode: 'live', phone, voiceCarrierId: car.id },
          { clock },
        );
      });
      return { acct, phone };
    }

    function liveLogin(acct: TestAccount) {
      const who = { accountId: acct.accountId, mode: 'live' as const, userId: 'usr_tls' };
      return issueSipCredentials(t.voice.secrets, who, Date.now(), 600);
    }

    /** The account's live call events, once `count` of them exist (polled for at most 10 s). */
    async function liveCalls(acct: TestAccount, count: number) {
      for (let i = 0; i < 100; i++) {
        const events = (await eventsOf(t.store.db, acct.accountId, 'live')).filter((e) =>
          e.type.startsWith('call.'),
        );
        if (events.length >= count) return events;
        await sleep(100);
      }
      assert.fail(`fewer than ${count} live call events after 10 s`);
    }

    test('a live call to a TLS trunk goes over TLS, is answered, and completes with its duration', async () => {
      const { acct, phone } = await trunkedAccount('127.0.0.1', trunk.tlsPort);
      // The carrier's side hears only what its TLS edge took over TLS from Switchboard.
      const carrier = await startSippServer('answer', { port: trunk.carrierPort });
      const login = liveLogin(acct);
      const call = await runSipp(t.stack, 'call', {
        keys: { from: 'softphone', to: CALLED },
        username: login.username,
        password: login.password,
        pauseMs: 2000,
      });
      assert.equal(call.code, 0, call.errors || call.output);
      const far = await carrier.done;
      assert.equal(far.code, 0, far.errors || far.output);
      const event = (await liveCalls(acct, 1)).at(-1)!;
      assert.deepEqual(
        [event.type, event.data.direction, event.data.from, event.data.to, event.data.status],
        ['call.completed', 'outbound', phone, CALLED, 'completed'],
      );
      assert.ok(
        Number(event.data.duration) >= 1 && Number(event.data.duration) <= 10,
        `duration ${String(event.data.duration)}`,
      );
    });

    /**
     * A live call from a softphone of `acct`, refused 503 and recorded as any outbound call
     * that never connected (status missed); how long until the refusal.
     */
    async function refusedCall(acct: TestAccount, calls = 1): Promise<number> {
      const login = liveLogin(acct);
      const started = Date.now();
      const call = await runSipp(t.stack, 'call-unavailable', {
        keys: { from: 'softphone', to: CALLED },
        username: login.username,
        password: login.password,
        timeoutMs: 10_000,
      });
      const waited = Date.now() - started;
      assert.equal(call.code, 0, call.errors || call.output);
      const event = (await liveCalls(acct, calls)).at(-1)!;
      assert.deepEqual(
        [event.type, event.data.direction, event.data.to, event.data.status, event.data.duration],
        ['call.completed', 'outbound', CALLED, 'missed', 0],
      );
      return waited;
    }

    /** Asserts the carrier's edge at `edge` took no call, and its side (sipp) heard nothing. */
    async function reachedNoOne(
      edge: TlsTrunk,
      carrier: Awaited<ReturnType<typeof startSippServer>>,
    ) {
      assert.doesNotMatch(edge.log(), /over TLS: INVITE/, 'the carrier was sent the INVITE');
      const far = await carrier.done;
      assert.doesNotMatch(far.log, /^FROM /m, 'the carrier was reached');
      assert.notEqual(far.code, 0);
    }

    test('a live call to a TLS trunk whose certificate is not trusted is refused at once and reaches no one', async () => {
      const stranger = await startTlsTrunk();
      try {
        const { acct } = await trunkedAccount('127.0.0.1', stranger.tlsPort);
        const carrier = await startSippServer('answer', {
          port: stranger.carrierPort,
          timeoutMs: 3000,
        });
        const waited = await refusedCall(acct);
        // Refused, not left ringing until Kamailio's ring timer ends the call.
        assert.ok(waited < 5000, `refused after ${waited} ms`);
        // Visibly: Kamailio says why in its log.
        const kamailio = t.stack.programs.find((program) => program.name === 'kamailio')!;
        assert.match(kamailio.lastLines(), /to its trunk refused: .*not trusted: self-signed/);
        await reachedNoOne(stranger, carrier);
      } finally {
        await stranger.stop();
      }
    });

    test('a live call to a TLS trunk whose trusted certificate names another host is refused at once and reaches no one', async () => {
      // Issued by the trusted CA for other.example; its CN names the trunk's host, but a
      // certificate with subjectAltName names only those (RFC 6125).
      const impostor = await startTlsTrunk({
        switchboard: `127.0.0.1:${t.stack.tlsPort}`,
        certificate: ca.issue('DNS:other.example', 'localhost'),
      });
      try {
        const carrier = await startSippServer('answer', {
          port: impostor.carrierPort,
          timeoutMs: 4000,
        });
        for (const host of ['localhost', '127.0.0.1']) {
          const { acct } = await trunkedAccount(host, impostor.tlsPort);
          const waited = await refusedCall(acct);
          assert.ok(waited < 5000, `refused after ${waited} ms`);
        }
        const kamailio = t.stack.programs.find((program) => program.name === 'kamailio')!;
        assert.match(
          kamailio.lastLines(),
          /to its trunk refused: .*names another host: .*DNS:other\.example/,
        );
        await reachedNoOne(impostor, carrier);
        // As its OPTIONS check judges it.
        const check = await probeTrunk(
          { host: 'localhost', port: impostor.tlsPort, transport: 'tls' },
          3000,
          { ca: ca.cert },
        );
        assert.equal(check.answered, false);
        assert.match(check.reason, /^TLS certificate names another host: /);
      } finally {
        await impostor.stop();
      }
    });

    test("a live call to a TLS trunk that refuses Kamailio's handshake fails well before the ring timeout", async () => {
      // The trunk wants a client certificate its own CA issued, which Switchboard's is not:
      // Switchboard's check (no client certificate, TLS 1.3) passes, Kamailio's handshake fails.
      const strict = await startTlsTrunk({
        certificate: ca.issue('IP:127.0.0.1', '127.0.0.1'),
        clientCa: makeTestCa().cert,
      });
      try {
        const { acct } = await trunkedAccount('127.0.0.1', strict.tlsPort);
        const carrier = await startSippServer('answer', {
          port: strict.carrierPort,
          timeoutMs: 4000,
        });
        const waited = await refusedCall(acct);
        assert.ok(waited < RING_TIMEOUT_MS / 3, `failed after ${waited} ms`);
        const kamailio = t.stack.programs.find((program) => program.name === 'kamailio')!;
        assert.match(kamailio.lastLines(), /its trunk did not answer/);
        await reachedNoOne(strict, carrier);
      } finally {
        await strict.stop();
      }
    });

    test('a live call to a TLS trunk named by host name sends that name as SNI', async () => {
      // A trunk of its own: Kamailio would reuse a connection already open to another.
      const named = await startTlsTrunk({
        switchboard: `127.0.0.1:${t.stack.tlsPort}`,
        certificate: ca.issue('DNS:localhost', 'localhost'),
      });
      try {
        const { acct } = await trunkedAccount('localhost', named.tlsPort);
        const carrier = await startSippServer('answer', { port: named.carrierPort });
        const login = liveLogin(acct);
        const call = await runSipp(t.stack, 'call', {
          keys: { from: 'softphone', to: CALLED },
          username: login.username,
          password: login.password,
          pauseMs: 500,
        });
        assert.equal(call.code, 0, call.errors || call.output);
        const far = await carrier.done;
        assert.equal(far.code, 0, far.errors || far.output);
        assert.match(named.log(), /over TLS: INVITE, SNI \[localhost\]/);
      } finally {
        await named.stop();
      }
    });

    test("a call from the TLS trunk's address rings the account's live softphones", async () => {
      const { acct, phone } = await trunkedAccount('127.0.0.1', trunk.tlsPort);
      const softphone = await startSippServer('answer');
      const login = liveLogin(acct);
      const reg = await runSipp(t.stack, 'register-contact', {
        keys: { aor: login.aor, contact_port: String(softphone.port) },
        username: login.username,
        password: login.password,
      });
      assert.equal(reg.code, 0, reg.errors || reg.output);
      // The carrier's side calls its TLS edge over UDP; the edge calls Switchboard over TLS.
      const edge = { host: '127.0.0.1', sipPort: trunk.udpPort };
      const call = await runSipp(edge, 'trunk-call', {
        keys: { from: CALLED, to: phone },
        pauseMs: 1000,
      });
      assert.equal(call.code, 0, call.errors || call.output);
      const answered = await softphone.done;
      assert.equal(answered.code, 0, answered.errors || answered.output);
      const event = (await liveCalls(acct, 1)).at(-1)!;
      assert.deepEqual(
        [event.type, event.data.direction, event.data.from, event.data.to],
        ['call.completed', 'inbound', CALLED, phone],
      );
    });

    test('a call over TLS to a live number whose trunk is at another address is refused 403', async () => {
      const { phone } = await trunkedAccount('192.0.2.12', 5061);
      const edge = { host: '127.0.0.1', sipPort: trunk.udpPort };
      const call = await runSipp(edge, 'call-refused', {
        keys: { from: CALLED, to: phone },
        timeoutMs: 5000,
      });
      assert.equal(call.code, 0, call.errors || call.output);
    });
  });
}
