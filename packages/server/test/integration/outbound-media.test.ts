// A sent MMS lists its media: a link to one of the account's own kept media (the softphone's
// picker puts pictures there) reports the stored type and size, not a guess from the URL;
// any other URL, and another account's link, are typed by extension. On both engines.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeMedia } from '../../src/commands/store-media.ts';
import { mediaLink } from '../../src/http/media/media-links.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { PNG } from '../support/media-host.ts';

const PUBLIC_URL = 'https://sms.example.com';
const CUSTOMER = '+14155550170';

for (const engine of ENGINES) {
  describe(`the media of a sent MMS (${engine})`, () => {
    let app: TestApp;
    let account: TestAccount;
    let other: TestAccount;
    before(async () => {
      // Nothing is delivered: what the send stores is the point.
      app = await startTestApp(engine, {
        background: false,
        env: { SWITCHBOARD_PUBLIC_URL: PUBLIC_URL },
      });
      [account, other] = [await app.newAccount('Sender'), await app.newAccount('Other')];
    });
    after(async () => {
      await app?.close();
    });

    const keep = async (accountId: string) => {
      const { ids } = await app.store.write((tx) =>
        storeMedia(
          tx,
          { accountId, items: [{ contentType: 'image/png', data: PNG.toString('base64') }] },
          { clock: { now: () => Date.now() } },
        ),
      );
      return mediaLink(app.secrets, PUBLIC_URL, ids[0]!, Date.now() + 3_600_000);
    };

    test("a link to the account's own kept picture reports its stored type and size", async () => {
      const own = await keep(account.accountId);
      const res = await account.test.post('/v1/messages', {
        from: account.testNumbers[0]!,
        to: CUSTOMER,
        mediaUrls: [own, 'https://cdn.example.com/menu.pdf'],
      });
      assert.equal(res.status, 201, res.text);
      const expected = [
        { url: own, contentType: 'image/png', size: PNG.length },
        { url: 'https://cdn.example.com/menu.pdf', contentType: 'application/pdf' },
      ];
      assert.deepEqual(res.body.media, expected);
      const fetched = await account.test.get(`/v1/messages/${res.body.id}`);
      assert.deepEqual(fetched.body.media, expected);
    });

    test("another account's link is described as any URL is, by its (missing) extension", async () => {
      const theirs = await keep(other.accountId);
      const res = await account.test.post('/v1/messages', {
        from: account.testNumbers[0]!,
        to: CUSTOMER,
        mediaUrls: [theirs],
      });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.media, [{ url: theirs, contentType: 'application/octet-stream' }]);
    });
  });
}
