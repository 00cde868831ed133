// The ESME session's traffic against two SMSC implementations (Net::SMPP and npm's smpp
// server), on 127.0.0.1: what a submit_sm carries, receipts matched to submissions, the
// window, the throughput cap, throttling, timeouts, and texts from handsets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ResponseTimeout, SmppStatusError, Throttled } from '../../src/carriers/smpp/errors.ts';
import { encodeUcs2 } from '../../src/carriers/smpp/gsm7.ts';
import type { InboundPart } from '../../src/carriers/smpp/inbound.ts';
import { reassemble } from '../../src/carriers/smpp/reassemble.ts';
import type { DeliveryEvent } from '../../src/carriers/smpp/session.ts';
import type { SmscEvent } from '../support/smsc-peer.ts';
import { gate } from '../support/gate.ts';
import {
  SMSCS,
  waitForDelivered,
  waitForState,
  waitForStatus,
  withSmsc,
} from '../support/smpp-esme.ts';

const FROM = '+15550100';
const TO = '+447700900123';

/** The most submit_sm outstanding at any point of the SMSC's log (received minus answered). */
function mostOutstanding(events: SmscEvent[]): number {
  let outstanding = 0;
  let most = 0;
  for (const e of events) {
    if (e.event === 'pdu' && e.command === 'submit_sm') outstanding++;
    if (e.event === 'sent' && e.command === 'submit_sm_resp') outstanding--;
    most = Math.max(most, outstanding);
  }
  return most;
}

for (const smsc of SMSCS) {
  describe(`traffic through the ESME session against ${smsc.name}`, () => {
    it('submits E.164 numbers as TON 1 / NPI 1 without the +, asking a receipt for every part', async () => {
      await withSmsc(smsc, {}, {}, async ({ peer, session }) => {
        const sent = await session.submitText({
          from: FROM,
          to: TO,
          text: 'Ж'.repeat(100),
          reference: 9,
        });
        assert.deepEqual(
          sent.parts.map((p) => p.ok),
          [true, true],
        );
        // The peer logs what it read on its own pipe, which may trail its answers.
        await peer.waitFor('both parts logged', () => peer.received('submit_sm').length >= 2);
        const submits = peer.received('submit_sm');
        assert.equal(submits.length, 2);
        for (const [index, s] of submits.entries()) {
          assert.deepEqual(
            [
              s.source_addr,
              s.source_addr_ton,
              s.source_addr_npi,
              s.destination_addr,
              s.dest_addr_ton,
              s.dest_addr_npi,
            ],
            ['15550100', 1, 1, '447700900123', 1, 1],
          );
          assert.deepEqual([s.registered_delivery, s.esm_class, s.data_coding], [1, 0x40, 8]);
          const udh = ['050003090201', '050003090202'][index];
          assert.equal(String(s.short_message).slice(0, 12), udh, 'reference 9, part n of 2');
        }
      });
    });

    it('sends a long text as one message_payload when the connection says so', async () => {
      await withSmsc(smsc, {}, { longMessages: 'payload' }, async ({ peer, session }) => {
        const text = 'GSM text with € '.repeat(15);
        await session.submitText({ from: FROM, to: TO, text });
        const [submit] = peer.received('submit_sm');
        assert.equal(submit?.short_message, '');
        // 15 × 17 septets (the euro sign is two), one octet each.
        assert.equal(Buffer.from(String(submit?.message_payload), 'hex').length, 255);
        assert.equal(submit?.esm_class, 0);
      });
    });

    for (const receipt of ['text', 'tlv'] as const) {
      it(`matches a ${receipt} receipt to its hex submit_sm_resp id, the text’s id being decimal`, async () => {
        await withSmsc(
          smsc,
          { respIds: 'hex', receiptIds: 'dec', receipt },
          { ids: { submit: 'hex', receipt: 'dec' } },
          async (rig) => {
            const sent = await rig.session.submitText({
              from: FROM,
              to: TO,
              text: 'receipt please',
            });
            const part = sent.parts[0]!;
            assert.ok(part.ok);
            assert.equal(part.result.rawMessageId, 'F4240');
            const [event] = await waitForDelivered(rig, 1);
            assert.equal(event?.kind, 'receipt');
            if (event?.kind !== 'receipt') return;
            assert.equal(event.receipt.messageId, part.result.messageId);
            assert.equal(event.receipt.source, receipt);
            assert.deepEqual(event.receipt.outcome, {
              status: 'delivered',
              failureReason: null,
              final: true,
            });
            await rig.peer.waitFor(
              'deliver_sm_resp',
              (e) => e.command === 'deliver_sm_resp' && e.status === 0,
            );
          },
        );
      });
    }

    it('never has more submissions outstanding than its window; the rest wait their turn', async () => {
      await withSmsc(smsc, {}, { window: 4, queueTimeoutMs: 10_000 }, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        await peer.command({ cmd: 'hold' });
        const texts = Array.from({ length: 12 }, (_, i) =>
          session.submitText({ from: FROM, to: TO, text: `n${i}` }),
        );
        await peer.waitFor('four held', () => peer.received('submit_sm').length === 4);
        await sleep(200);
        assert.equal(peer.received('submit_sm').length, 4);
        assert.deepEqual([session.status.inFlight, session.status.queued], [4, 8]);
        await peer.command({ cmd: 'release' });
        const results = await Promise.all(texts);
        assert.ok(results.every((r) => r.parts[0]?.ok));
        // The SMSC's log is read from its output, which may trail its answers on the socket.
        await peer.waitFor(
          'twelve submit_sm logged',
          () => peer.received('submit_sm').length === 12,
        );
        assert.ok(
          mostOutstanding(peer.events) <= 4,
          `at most 4 outstanding, saw ${mostOutstanding(peer.events)}`,
        );
      });
    });

    it('keeps to its throughput cap', async () => {
      await withSmsc(smsc, {}, { throughput: 20 }, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        const started = Date.now();
        await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            session.submitText({ from: FROM, to: TO, text: `m${i}` }),
          ),
        );
        const times = peer.received('submit_sm').map((e) => e.t);
        assert.equal(times.length, 30);
        // 30 at 20 a second, one at once: 29 intervals of 50 ms. Loose bounds, as the SMSC's
        // clock stamps what it reads, and a busy machine can delay its reading.
        assert.ok(Date.now() - started >= 1_300, `took ${Date.now() - started} ms`);
        assert.ok(
          times.at(-1)! - times[0]! >= 1_200,
          `spread over ${times.at(-1)! - times[0]!} ms`,
        );
        for (const t of times) {
          const inSecond = times.filter((u) => u >= t && u < t + 1_000).length;
          assert.ok(inSecond <= 26, `${inSecond} submissions within one second`);
        }
      });
    });

    for (const [status, name] of [
      [0x58, 'ESME_RTHROTTLED'],
      [0x14, 'ESME_RMSGQFUL'],
    ] as const) {
      it(`on ${name} the submission fails as Throttled, never permanently, and submitting pauses`, async () => {
        await withSmsc(smsc, {}, { throttlePauseMs: 400 }, async ({ peer, session }) => {
          await waitForState(session, 'bound');
          await peer.command({ cmd: 'throttle', count: 1, status });
          const first = await session.submitText({ from: FROM, to: TO, text: 'one' });
          const failed = first.parts[0]!;
          assert.ok(!failed.ok);
          assert.ok(failed.error instanceof Throttled, String(failed.error));
          assert.ok(!(failed.error instanceof SmppStatusError), 'not a refusal');
          assert.equal(failed.error.outcomeUnknown, false);
          const throttledAt = Date.now();
          assert.ok(session.status.pausedUntil !== null, 'paused');
          const second = await session.submitText({ from: FROM, to: TO, text: 'two' });
          assert.ok(second.parts[0]?.ok);
          const [, retry] = peer.received('submit_sm');
          assert.ok(
            retry!.t - throttledAt >= 300,
            `submitted again after ${retry!.t - throttledAt} ms`,
          );
          assert.equal(session.status.state, 'bound');
        });
      });
    }

    it('rejects a submission the SMSC never answers with ResponseTimeout: outcome unknown', async () => {
      await withSmsc(smsc, {}, { responseTimeoutMs: 300 }, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        await peer.command({ cmd: 'silent', count: 1 });
        const started = Date.now();
        const sent = await session.submitText({ from: FROM, to: TO, text: 'lost' });
        const part = sent.parts[0]!;
        assert.ok(!part.ok);
        assert.ok(part.error instanceof ResponseTimeout, String(part.error));
        assert.equal(part.error.outcomeUnknown, true);
        assert.ok(Date.now() - started >= 250);
        assert.ok((await session.submitText({ from: FROM, to: TO, text: 'next' })).parts[0]?.ok);
        assert.equal(peer.received('submit_sm').length, 2);
      });
    });

    it('reassembles a concatenated UCS-2 text from a handset, and acknowledges each part only after the handler', async () => {
      const handled = gate();
      const parts: InboundPart[] = [];
      const onDeliver = async (event: DeliveryEvent) => {
        await handled.opened;
        if (event.kind === 'message') parts.push(event.part);
      };
      await withSmsc(smsc, {}, { onDeliver }, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        const text = 'Привет 😀 — '.repeat(12);
        const bytes = encodeUcs2(text);
        const chunks = [bytes.subarray(0, 134), bytes.subarray(134, 268), bytes.subarray(268)];
        // Sent out of order: the second part, the third, then the first.
        for (const index of [1, 2, 0]) {
          const udh = Buffer.from([5, 0, 3, 0x77, 3, index + 1]);
          await peer.command({
            cmd: 'mo',
            source: '447700900123',
            dest: '15550100',
            esm_class: 0x40,
            data_coding: 8,
            hex: Buffer.concat([udh, chunks[index]!]).toString('hex'),
          });
        }
        const mos = () => peer.events.filter((e) => e.event === 'sent' && e.command === 'mo');
        await peer.waitFor('three MOs sent', () => mos().length === 3);
        const seqs = mos().map((e) => e.seq);
        await sleep(300);
        assert.equal(
          peer.received('deliver_sm_resp').length,
          0,
          'no deliver_sm_resp before the handler resolves',
        );
        handled.open();
        for (const seq of seqs) {
          const resp = await peer.waitFor(
            `deliver_sm_resp ${seq}`,
            (e) => e.command === 'deliver_sm_resp' && e.seq === seq,
          );
          assert.equal(resp.status, 0);
        }
        const texts = reassemble(parts).complete;
        assert.equal(texts.length, 1);
        assert.equal(texts[0]?.text, text);
        assert.equal(texts[0]?.source, '+447700900123');
      });
    });

    it('answers ESME_RX_T_APPN when the handler fails, so the SMSC delivers again', async () => {
      const onDeliver = async () => {
        throw new Error('the database is away');
      };
      await withSmsc(smsc, {}, { onDeliver }, async ({ peer, session }) => {
        await waitForState(session, 'bound');
        await peer.command({
          cmd: 'mo',
          source: '447700900123',
          dest: '15550100',
          hex: Buffer.from('hello').toString('hex'),
        });
        const resp = await peer.waitFor('deliver_sm_resp', (e) => e.command === 'deliver_sm_resp');
        assert.equal(resp.status, 0x64);
        await waitForStatus(session, (s) => s.state === 'bound', 'still bound');
      });
    });
  });
}
