// Whatever an SMSC sends, the ESME does not crash: random PDUs of every command id, with
// random bodies, over a live bind to npm's smpp server on 127.0.0.1.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { CommandId } from '../../src/carriers/smpp/pdu.ts';
import { SMSCS, waitForState, withSmsc } from '../support/smpp-esme.ts';

const IDS = [...Object.values(CommandId), 0x00000099, 0x80000099];

/** Frames with a correct command_length and anything else at random. */
const frames = fc.array(
  fc
    .record({
      id: fc.constantFrom(...IDS),
      status: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffffffff })),
      seq: fc.integer({ min: 0, max: 0x7fffffff }),
      body: fc.uint8Array({ maxLength: 80 }),
    })
    .map(({ id, status, seq, body }) => {
      const frame = Buffer.concat([Buffer.alloc(16), Buffer.from(body)]);
      frame.writeUInt32BE(frame.length, 0);
      frame.writeUInt32BE(id, 4);
      frame.writeUInt32BE(status, 8);
      frame.writeUInt32BE(seq, 12);
      return frame;
    }),
  { minLength: 150, maxLength: 150 },
);

describe('malformed and unexpected PDUs from the SMSC', () => {
  it('never crash the ESME: it answers, or rebinds, and goes on submitting', async () => {
    const smsc = SMSCS.find((s) => s.name === 'npm smpp')!;
    const [batch] = fc.sample(frames, { numRuns: 1, seed: 34 });
    await withSmsc(smsc, { receipt: 'none' }, {}, async ({ peer, session }) => {
      await waitForState(session, 'bound');
      for (const [index, frame] of batch!.entries()) {
        // An unbind among them closes the link; what follows goes to the next one.
        if (session.status.state !== 'bound') await waitForState(session, 'bound');
        await peer.command({ cmd: 'raw', seq: index, hex: frame.toString('hex') });
      }
      await sleep(200);
      await waitForState(session, 'bound');
      const sent = await session.submitText({ from: '+15550100', to: '+15550101', text: 'alive' });
      assert.equal(sent.parts[0]?.ok, true);
    });
  });
});
