// The ESME session's connection against two SMSC implementations (Net::SMPP and npm's
// smpp server), on 127.0.0.1: binding, refusals, rebinding, keep-alives, and what it does
// with PDUs it does not understand or cannot frame.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { NotSent } from '../../src/carriers/smpp/errors.ts';
import type { AlertNotificationPdu } from '../../src/carriers/smpp/pdu.ts';
import { encodePdu } from '../../src/carriers/smpp/pdu-codec.ts';
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
        await peer.command({ cmd: 'enquire_link' });
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
        await peer.command({ cmd: 'unknown', command_id: 0x00000099 });
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
        await peer.command({ cmd: 'garbage' });
        const nack = await peer.waitFor('generic_nack', (e) => e.command === 'generic_nack');
        assert.deepEqual([nack.seq, nack.status], [78, 0x02]);
        await peer.waitFor('unbind', (e) => e.event === 'pdu' && e.command === 'unbind');
        await peer.waitFor('a second bind', () => peer.received('bind_transceiver').length === 2);
        await waitForState(session, 'bound');
      });
    });

    it('answers the SMSC’s unbind with unbind_resp, closes, and binds again', async () => {
      await withSmsc(smsc, {}, {}, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        await peer.command({ cmd: 'unbind' });
        const sent = await peer.waitFor(
          'unbind',
          (e) => e.event === 'sent' && e.command === 'unbind',
        );
        const resp = await peer.waitFor('unbind_resp', (e) => e.command === 'unbind_resp');
        assert.deepEqual([resp.seq, resp.status], [sent.seq, 0]);
        await peer.waitFor('a second bind', () => peer.received('bind_transceiver').length === 2);
        await waitForState(session, 'bound');
      });
    });

    it('reads a receipt carried by data_sm and answers data_sm_resp; takes alert_notification without answering', async () => {
      await withSmsc(smsc, {}, {}, async (rig) => {
        const alerts: AlertNotificationPdu[] = [];
        rig.session.on('alert', (alert) => alerts.push(alert));
        await waitForState(rig.session, 'bound');
        const dataSm = encodePdu({
          command: 'data_sm',
          commandStatus: 0,
          sequenceNumber: 80,
          serviceType: '',
          sourceAddrTon: 1,
          sourceAddrNpi: 1,
          sourceAddr: '447700900123',
          destAddrTon: 1,
          destAddrNpi: 1,
          destinationAddr: '15550100',
          esmClass: 0x04,
          registeredDelivery: 0,
          dataCoding: 0,
          tlvs: { receiptedMessageId: '4242', messageState: 8 },
        });
        await rig.peer.command({ cmd: 'raw', seq: 80, hex: dataSm.toString('hex') });
        const resp = await rig.peer.waitFor('data_sm_resp', (e) => e.command === 'data_sm_resp');
        assert.deepEqual([resp.seq, resp.status], [80, 0]);
        const [event] = await waitForDelivered(rig, 1);
        assert.equal(event?.kind, 'receipt');
        if (event?.kind === 'receipt') {
          assert.equal(event.receipt.messageId, '4242');
          assert.deepEqual(event.receipt.outcome, {
            status: 'failed',
            failureReason: 'carrier_rejected',
            final: true,
          });
        }
        const alert = encodePdu({
          command: 'alert_notification',
          commandStatus: 0,
          sequenceNumber: 81,
          sourceAddrTon: 1,
          sourceAddrNpi: 1,
          sourceAddr: '447700900123',
          esmeAddrTon: 1,
          esmeAddrNpi: 1,
          esmeAddr: '15550100',
          tlvs: { msAvailabilityStatus: 0 },
        });
        await rig.peer.command({ cmd: 'raw', seq: 81, hex: alert.toString('hex') });
        await waitForStatus(rig.session, () => alerts.length === 1, 'the alert');
        assert.equal(alerts[0]?.sourceAddr, '447700900123');
        await sleep(100);
        assert.equal(
          rig.peer.events.filter((e) => e.event === 'pdu' && e.seq === 81).length,
          0,
          'no answer',
        );
      });
    });

    it('answers a malformed deliver_sm with an error status and stays bound', async () => {
      await withSmsc(smsc, {}, {}, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        // deliver_sm, sequence 79, whose service_type never ends.
        await peer.command({
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
        await peer.command({
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
