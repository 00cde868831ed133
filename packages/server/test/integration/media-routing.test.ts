// An MMS leaves only through a connection that carries media: from a number routed over SMPP
// it is 422 and nothing is stored, never a silent text-only send; on both engines.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addCarrier } from '../../src/commands/add-carrier.ts';
import { addNumber } from '../../src/commands/add-number.ts';
import { assertApiError, assertStoresNothing } from '../support/api-errors.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';

const SMPP_LINE = '+14155550901';
const TWILIO_LINE = '+14155550902';

for (const engine of ENGINES) {
  describe(`MMS routing by connection (${engine})`, () => {
    let app: TestApp;
    let account: TestAccount;
    before(async () => {
      // Nothing is sent: the rule is checked as the send is accepted.
      app = await startTestApp(engine, { background: false });
      account = await app.newAccount('Routing');
      const deps = { clock: { now: () => Date.now() }, seal: (s: string) => app.secrets.seal(s) };
      const smpp = await app.store.write((tx) =>
        addCarrier(
          tx,
          account.accountId,
          { type: 'smpp', host: '127.0.0.1', systemId: 'test', password: 'secret' },
          deps,
        ),
      );
      const twilio = await app.store.write((tx) =>
        addCarrier(
          tx,
          account.accountId,
          { type: 'twilio', accountSid: `AC${'a'.repeat(32)}`, authToken: 'token-token' },
          deps,
        ),
      );
      for (const [phone, carrierId] of [
        [SMPP_LINE, smpp.id],
        [TWILIO_LINE, twilio.id],
      ] as const) {
        await app.store.write((tx) =>
          addNumber(tx, { accountId: account.accountId, mode: 'live', phone, carrierId }, deps),
        );
      }
    });
    after(async () => {
      await app?.close();
    });

    test('an MMS from a number routed over SMPP is 422 naming mediaUrls, and stores nothing', async () => {
      await assertStoresNothing(app.store, async () => {
        const res = await account.live.post('/v1/messages', {
          from: SMPP_LINE,
          to: '+447700900123',
          body: 'A picture',
          mediaUrls: ['https://example.com/cat.jpg'],
        });
        assertApiError(res, 422, 'validation_error', 'mediaUrls');
        assert.match(
          (res.body as { error: { message: string } }).error.message,
          /carries no media/,
        );
      });
    });

    test('a text from the same number is accepted, and an MMS from a Twilio-routed number too', async () => {
      const text = await account.live.post('/v1/messages', {
        from: SMPP_LINE,
        to: '+447700900123',
        body: 'Text only',
      });
      assert.equal(text.status, 201);
      const mms = await account.live.post('/v1/messages', {
        from: TWILIO_LINE,
        to: '+447700900123',
        body: 'A picture',
        mediaUrls: ['https://example.com/cat.jpg'],
      });
      assert.equal(mms.status, 201, JSON.stringify(mms.body));
    });
  });
}
