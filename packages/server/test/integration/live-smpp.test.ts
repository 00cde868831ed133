// Live keys send and receive real texts over SMPP: the whole service (API, dispatcher, live
// carrier, the ESME) against SMSCs the project did not write (Net::SMPP's, npm smpp's),
// on both engines.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addCarrier } from '../../src/commands/add-carrier.ts';
import { addNumber } from '../../src/commands/add-number.ts';
import { listCarrierViews } from '../../src/queries/carriers.ts';
import { accountScoped } from '../../src/store/scope.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { eventsOf, waitFor, waitForStatus } from '../support/messaging.ts';
import { freePort } from '../support/processes.ts';
import { SMSCS } from '../support/smpp-esme.ts';
import type { SmscEvent, SmscOptions, SmscPeer } from '../support/smsc-peer.ts';

const LINE = '+14155550999';
const HANDSET = '+447700900123';

/** Each engine with Net::SMPP; npm smpp's server on SQLite, where storage does not differ. */
const RUNS = [
  ...ENGINES.map((engine) => ({ engine, smsc: SMSCS[0]! })),
  ...(ENGINES.includes('sqlite') ? [{ engine: 'sqlite' as const, smsc: SMSCS[1]! }] : []),
];

interface Rig {
  app: TestApp;
  account: TestAccount;
  peer: SmscPeer;
  carrierId: string;
}

/** A service, an SMSC with `options`, an account whose live line goes through it. */
async function rig(run: (typeof RUNS)[number], options: SmscOptions = {}): Promise<Rig> {
  const peer = await run.smsc.start({ port: await freePort(), ...options });
  const app = await startTestApp(run.engine, { background: true });
  const account = await app.newAccount('Live');
  const deps = { clock: { now: () => Date.now() }, seal: (s: string) => app.secrets.seal(s) };
  const carrier = await app.store.write((tx) =>
    addCarrier(
      tx,
      account.accountId,
      {
        type: 'smpp',
        host: '127.0.0.1',
        port: peer.port,
        systemId: options.systemId ?? 'test',
        password: 'secret',
        receiptIds: options.respIds === 'hex' ? 'hex' : 'dec',
      },
      deps,
    ),
  );
  await app.store.write((tx) =>
    addNumber(tx, { accountId: account.accountId, mode: 'live', phone: LINE }, deps),
  );
  return { app, account, peer, carrierId: carrier.id };
}

async function stateOf(r: Rig) {
  const views = await listCarrierViews(
    accountScoped(r.app.store.db, r.account.accountId),
    Date.now(),
  );
  return views.find((v) => v.id === r.carrierId)!;
}

const waitForState = (r: Rig, status: string, timeoutMs = 10_000) =>
  waitFor(
    async () => ((await stateOf(r)).status === status ? stateOf(r) : undefined),
    `connection ${status}`,
    { timeoutMs, intervalMs: 100 },
  );

const send = async (r: Rig, body: string, to = HANDSET) => {
  const res = await r.account.live.post('/v1/messages', { from: LINE, to, body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string };
};

const submits = (peer: SmscPeer): SmscEvent[] => peer.received('submit_sm');

for (const run of RUNS) {
  describe(`live messaging over SMPP (${run.smsc.name}, ${run.engine})`, () => {
    let r: Rig;
    before(async () => {
      r = await rig(run, { respIds: 'hex', receiptIds: 'dec' });
    });
    after(async () => {
      await r?.app.close();
      await r?.peer.stop();
    });

    test('the connection binds and says so, with nothing in flight', async () => {
      const state = await waitForState(r, 'bound');
      assert.equal(state.lastError, null);
      assert.equal(state.inFlight, 0);
    });

    test('a GSM-7 text with extension characters leaves as one submit_sm, TON 1/NPI 1 without +, and is delivered by its receipt', async () => {
      const body = 'Price: 10€ [ok] {x} ~^|\\';
      const before = submits(r.peer).length;
      const sent = await send(r, body);
      const delivered = await waitForStatus(r.account.live, sent.id, 'delivered', {
        timeoutMs: 10_000,
      });
      assert.equal(delivered.status, 'delivered');
      const pdu = submits(r.peer)[before]!;
      assert.equal(pdu.destination_addr, HANDSET.slice(1));
      assert.equal(pdu.dest_addr_ton, 1);
      assert.equal(pdu.dest_addr_npi, 1);
      assert.equal(pdu.source_addr, LINE.slice(1));
      assert.equal(pdu.registered_delivery, 1);
      assert.equal(pdu.data_coding, 0);
      assert.equal(submits(r.peer).length, before + 1);
      const events = await eventsOf(
        r.app.store.db,
        r.account.accountId,
        'live',
        'message.delivered',
      );
      assert.ok(
        events.some((e) => e.data.id === sent.id),
        'message.delivered recorded',
      );
    });

    test('a long UCS-2 text leaves as UDH parts, each with a receipt, and is delivered when all are', async () => {
      const body = 'Привет 😀 — '.repeat(12);
      const before = submits(r.peer).length;
      const sent = await send(r, body);
      await waitForStatus(r.account.live, sent.id, 'delivered', { timeoutMs: 10_000 });
      const parts = submits(r.peer).slice(before);
      assert.ok(parts.length >= 2, `${parts.length} parts`);
      for (const part of parts) {
        assert.equal(part.data_coding, 8);
        assert.equal(Number(part.esm_class) & 0x40, 0x40, 'UDH indicator');
      }
    });

    test('an inbound text over deliver_sm arrives as message.received in the live inbox', async () => {
      await r.peer.command({
        cmd: 'mo',
        source: HANDSET.slice(1),
        dest: LINE.slice(1),
        hex: Buffer.from('Hello from a handset').toString('hex'),
      });
      const received = await waitFor(
        async () =>
          (await eventsOf(r.app.store.db, r.account.accountId, 'live', 'message.received')).find(
            (e) => e.data.body === 'Hello from a handset',
          ),
        'message.received',
        { timeoutMs: 10_000 },
      );
      assert.equal(received.data.from, HANDSET);
      assert.equal(received.data.to, LINE);
    });

    test('a concatenated UCS-2 text from a handset, its parts out of order, arrives whole as message.received', async () => {
      const text = 'Привет 😀 — '.repeat(12);
      const bytes = Buffer.from(text, 'utf16le').swap16();
      const chunks = [bytes.subarray(0, 134), bytes.subarray(134, 268), bytes.subarray(268)];
      for (const index of [2, 0, 1]) {
        const udh = Buffer.from([5, 0, 3, 0x42, 3, index + 1]);
        await r.peer.command({
          cmd: 'mo',
          source: HANDSET.slice(1),
          dest: LINE.slice(1),
          esm_class: 0x40,
          data_coding: 8,
          hex: Buffer.concat([udh, chunks[index]!]).toString('hex'),
        });
      }
      const received = await waitFor(
        async () =>
          (await eventsOf(r.app.store.db, r.account.accountId, 'live', 'message.received')).find(
            (e) => e.data.body === text,
          ),
        'the whole text as message.received',
        { timeoutMs: 10_000 },
      );
      assert.equal(received.data.from, HANDSET);
    });

    test('STOP over SMPP opts the number out, and the confirmation leaves over the same connection', async () => {
      const before = submits(r.peer).length;
      await r.peer.command({
        cmd: 'mo',
        source: HANDSET.slice(1),
        dest: LINE.slice(1),
        hex: Buffer.from('STOP').toString('hex'),
      });
      await waitFor(
        async () => (submits(r.peer).length > before ? true : undefined),
        'the STOP confirmation submitted',
        { timeoutMs: 10_000 },
      );
      const refused = await r.account.live.post('/v1/messages', {
        from: LINE,
        to: HANDSET,
        body: 'After STOP',
      });
      assert.equal(refused.status, 422);
      assert.equal(refused.body.error.param, 'to');
    });

    test('a submit_sm_resp of ESME_RINVDSTADR fails the message as invalid_number', async () => {
      await r.peer.command({ cmd: 'throttle', count: 1, status: 0x0b });
      const sent = await send(r, 'To a bad number', '+447700900555');
      const failed = await waitForStatus(r.account.live, sent.id, 'failed', { timeoutMs: 10_000 });
      assert.equal(failed.failureReason, 'invalid_number');
    });

    test('ESME_RTHROTTLED pauses the bind and the text leaves again, never failed', async () => {
      await r.peer.command({ cmd: 'throttle', count: 2, status: 0x58 });
      const sent = await send(r, 'Throttled once', '+447700900556');
      const delivered = await waitForStatus(r.account.live, sent.id, 'delivered', {
        timeoutMs: 15_000,
      });
      assert.equal(delivered.status, 'delivered');
    });
  });
}

for (const run of RUNS.slice(0, ENGINES.length)) {
  describe(`live sends wait for their connection (${run.engine})`, () => {
    test('with the SMSC down a send stays queued, then leaves once it binds', async () => {
      const r = await rig(run);
      try {
        await waitForState(r, 'bound');
        await r.peer.kill();
        await waitFor(
          async () => ((await stateOf(r)).status !== 'bound' ? true : undefined),
          'the bind lost',
          { timeoutMs: 10_000, intervalMs: 100 },
        );
        const sent = await send(r, 'While the SMSC is down');
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const waiting = await r.account.live.get(`/v1/messages/${sent.id}`);
        assert.equal(waiting.body.status, 'queued', 'kept, not failed');
        const state = await stateOf(r);
        assert.match(String(state.lastError), /ECONNREFUSED|closed|lost/i);
        await r.peer.restart();
        await waitForStatus(r.account.live, sent.id, 'delivered', { timeoutMs: 20_000 });
      } finally {
        await r.app.close();
        await r.peer.stop();
      }
    });

    test('wrong credentials leave the connection failed with the SMSC’s reason, and sends kept', async () => {
      const r = await rig(run, { password: 'other' });
      try {
        const state = await waitForState(r, 'failed');
        assert.match(String(state.lastError), /ESME_RINVPASWD/);
        const sent = await send(r, 'Kept while failing');
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const kept = await r.account.live.get(`/v1/messages/${sent.id}`);
        assert.equal(kept.body.status, 'queued');
      } finally {
        await r.app.close();
        await r.peer.stop();
      }
    });
  });
}

/** What each kind of receipt makes of a message: the SMSC's receipt form, ids and state. */
const RECEIPTS: { name: string; options: SmscOptions; status: string; reason: string | null }[] = [
  {
    name: 'TLVs with decimal ids: DELIVRD → delivered',
    options: { receipt: 'tlv', respIds: 'dec' },
    status: 'delivered',
    reason: null,
  },
  {
    name: 'text with hex submit ids, decimal receipt ids: UNDELIV → failed, carrier_rejected',
    options: { receipt: 'text', respIds: 'hex', receiptIds: 'dec', stat: 'UNDELIV' },
    status: 'failed',
    reason: 'carrier_rejected',
  },
  {
    name: 'both forms: EXPIRED → failed, unreachable',
    options: { receipt: 'both', stat: 'EXPIRED' },
    status: 'failed',
    reason: 'unreachable',
  },
  {
    name: 'REJECTD → failed, carrier_rejected',
    options: { receipt: 'text', stat: 'REJECTD' },
    status: 'failed',
    reason: 'carrier_rejected',
  },
];

describe('receipts of every form end the message as their state says', () => {
  for (const { name, options, status, reason } of RECEIPTS) {
    test(name, async () => {
      const r = await rig(RUNS[0]!, options);
      try {
        await waitForState(r, 'bound');
        const sent = await send(r, 'Receipt test');
        const done = await waitForStatus(r.account.live, sent.id, status, { timeoutMs: 10_000 });
        assert.equal(done.failureReason, reason);
        const type = status === 'delivered' ? 'message.delivered' : 'message.failed';
        const events = await eventsOf(r.app.store.db, r.account.accountId, 'live', type);
        assert.ok(
          events.some((e) => e.data.id === sent.id),
          `${type} recorded`,
        );
      } finally {
        await r.app.close();
        await r.peer.stop();
      }
    });
  }
});
