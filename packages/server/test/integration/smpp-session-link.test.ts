// The ESME session's connection against two SMSC implementations (Net::SMPP and npm's
// smpp server), on 127.0.0.1: binding, refusals, rebinding, keep-alives, and what it does
// with PDUs it does not understand or cannot frame.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { NotSent } from '../../src/carriers/smpp/errors.ts';
import {
  SMSCS,
  waitForDelivered,
  waitForState,
  waitForStatus,
  withSmsc,
} from '../support/smpp-esme.ts';

const FROM = '+15550100';
const TO = '+447700900123';

for (const smsc of SMSCS) {
  describe(`the ESME session against ${smsc.name}`, () => {
    it('binds as a transceiver with its credentials and SMPP 3.4', async () => {
      await withSmsc(smsc, {}, {}, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        const [bind] = peer.received('bind_transceiver');
        assert.equal(bind?.system_id, 'test');
        assert.equal(bind?.interface_version, 0x34);
        assert.equal(session.status.lastError, null);
      });
    });

    it('fails with the SMSC’s reason on a wrong password, and submits nothing meanwhile', async () => {
      await withSmsc(
        smsc,
        {},
        { password: 'wrong', queueTimeoutMs: 300 },
        async ({ peer, session }) => {
          const status = await waitForState(session, 'failed');
          assert.equal(status.lastError, 'ESME_RINVPASWD (0x0E)');
          await assert.rejects(session.submit({ destinationAddr: '1' }), NotSent);
          assert.equal(peer.received('submit_sm').length, 0);
          // It keeps trying, with backoff: a second bind follows the first.
          await peer.waitFor(
            'a second bind',
            (e) => e.command === 'bind_transceiver',
            3_000,
            peer.events.indexOf(peer.received('bind_transceiver')[0]!) + 1,
          );
        },
      );
    });

    it('says why it cannot connect, and rebinds once the SMSC is back after a crash', async () => {
      await withSmsc(smsc, {}, {}, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        await peer.kill();
        const down = await waitForStatus(
          session,
          (s) => s.state === 'failed' && /ECONNREFUSED/.test(s.lastError ?? ''),
          'a refused reconnect',
        );
        assert.match(
          down.lastError!,
          new RegExp(`connect ECONNREFUSED 127\\.0\\.0\\.1:${peer.port}`),
        );
        await peer.restart();
        await waitForState(session, 'bound');
        const sent = await session.submitText({ from: FROM, to: TO, text: 'after the restart' });
        assert.equal(sent.parts[0]?.ok, true);
      });
    });

    it('binds a transmitter and a receiver when asked for a pair, and gets receipts on the receiver', async () => {
      await withSmsc(smsc, { receipt: 'tlv' }, { bindMode: 'pair' }, async (rig) => {
        await waitForState(rig.session, 'bound');
        assert.equal(rig.peer.received('bind_transmitter').length, 1);
        assert.equal(rig.peer.received('bind_receiver').length, 1);
        const sent = await rig.session.submitText({ from: FROM, to: TO, text: 'pair' });
        assert.ok(sent.parts[0]?.ok);
        const [receipt] = await waitForDelivered(rig, 1);
        assert.equal(receipt?.kind, 'receipt');
      });
    });

    it('sends enquire_link when idle, and answers the SMSC’s', async () => {
      await withSmsc(smsc, {}, { enquireLinkIntervalMs: 150 }, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        await peer.waitFor(
          'an enquire_link from the ESME',
          (e) => e.event === 'pdu' && e.command === 'enquire_link',
          3_000,
        );
        peer.command({ cmd: 'enquire_link' });
        const sent = await peer.waitFor(
          'the SMSC’s enquire_link',
          (e) => e.event === 'sent' && e.command === 'enquire_link',
        );
        const resp = await peer.waitFor(
          'enquire_link_resp',
          (e) => e.command === 'enquire_link_resp' && e.seq === sent.seq,
        );
        assert.equal(resp.status, 0);
        assert.equal(session.status.state, 'bound');
      });
    });

    it('answers a command it does not know with generic_nack ESME_RINVCMDID and stays bound', async () => {
      await withSmsc(smsc, {}, {}, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        peer.command({ cmd: 'unknown', command_id: 0x00000099 });
        const nack = await peer.waitFor('generic_nack', (e) => e.command === 'generic_nack');
        assert.deepEqual([nack.seq, nack.status], [77, 0x03]);
        assert.equal(session.status.state, 'bound');
        assert.ok(
          (await session.submitText({ from: FROM, to: TO, text: 'still here' })).parts[0]?.ok,
        );
      });
    });

    it('on a framing error sends generic_nack ESME_RINVCMDLEN, unbinds, and reconnects', async () => {
      await withSmsc(smsc, {}, {}, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        peer.command({ cmd: 'garbage' });
        const nack = await peer.waitFor('generic_nack', (e) => e.command === 'generic_nack');
        assert.deepEqual([nack.seq, nack.status], [78, 0x02]);
        await peer.waitFor('unbind', (e) => e.event === 'pdu' && e.command === 'unbind');
        await peer.waitFor('a second bind', () => peer.received('bind_transceiver').length === 2);
        await waitForState(session, 'bound');
      });
    });

    it('answers a malformed deliver_sm with an error status and stays bound', async () => {
      await withSmsc(smsc, {}, {}, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        // deliver_sm, sequence 79, whose service_type never ends.
        peer.command({
          cmd: 'raw',
          seq: 79,
          hex: '000000180000000500000000' + '0000004f' + '4141414141414141',
        });
        const resp = await peer.waitFor(
          'deliver_sm_resp',
          (e) => e.command === 'deliver_sm_resp' && e.seq === 79,
        );
        assert.equal(resp.status, 0x01, 'ESME_RINVMSGLEN');
        // A UDH longer than its message: readable PDU, unreadable text, a permanent refusal.
        peer.command({
          cmd: 'mo',
          source: '447700900123',
          dest: '15550100',
          esm_class: 0x40,
          hex: '09000301',
        });
        const sent = await peer.waitFor('the MO', (e) => e.event === 'sent' && e.command === 'mo');
        const refused = await peer.waitFor(
          'its resp',
          (e) => e.command === 'deliver_sm_resp' && e.seq === sent.seq,
        );
        assert.equal(refused.status, 0x65, 'ESME_RX_P_APPN');
        await sleep(50);
        assert.equal(session.status.state, 'bound');
      });
    });
  });
}
