// SMPP over TLS: the session binds, submits and takes receipts through a TLS front of each test
// SMSC when it trusts the front's certificate, and never binds to one it cannot verify.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SMSCS, waitForDelivered, waitForStatus, withSmsc } from '../support/smpp-esme.ts';
import { startTlsFront, type TlsFront } from '../support/tls-front.ts';
import { freePort } from '../support/processes.ts';

const FROM = '+14155550100';
const TO = '+447700900123';

for (const smsc of SMSCS) {
  describe(`SMPP over TLS against ${smsc.name}`, () => {
    /** `body` with a session on a TLS front of the SMSC; `tls` given the front's certificate. */
    const overTls = async (
      tls: (front: TlsFront) => boolean | { ca: string },
      body: Parameters<typeof withSmsc>[3],
    ) => {
      const port = await freePort();
      const front = await startTlsFront(port);
      try {
        await withSmsc(smsc, { port }, { port: front.port, tls: tls(front) }, body);
      } finally {
        await front.stop();
      }
    };

    it('binds through TLS to an SMSC whose certificate it trusts, submits, and takes the receipt', async () => {
      await overTls(
        (front) => ({ ca: front.ca }),
        async (rig) => {
          await waitForStatus(rig.session, (s) => s.state === 'bound', 'bound over TLS');
          const sent = await rig.session.submitText({ from: FROM, to: TO, text: 'over TLS' });
          assert.ok(sent.parts[0]?.ok);
          const [event] = await waitForDelivered(rig, 1);
          assert.equal(event?.kind, 'receipt');
          assert.equal(rig.peer.received('submit_sm')[0]?.destination_addr, TO.slice(1));
        },
      );
    });

    it('does not bind to an SMSC whose certificate it cannot verify, and says why', async () => {
      await overTls(
        () => true,
        async (rig) => {
          const status = await waitForStatus(
            rig.session,
            (s) => s.lastError !== null,
            'a TLS error',
          );
          assert.notEqual(status.state, 'bound');
          assert.match(status.lastError ?? '', /certificate/i);
          assert.equal(rig.peer.received('bind_transceiver').length, 0);
        },
      );
    });
  });
}
