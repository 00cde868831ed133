// Inbound MMS media are fetched at once into the durable media store and listed on the
// service's own signed, expiring links, fetchable without an API key; altered or ended links
// are 404; items too large or of a refused type are listed as not kept, with why; media
// follow the retention period. Through Telnyx and Twilio callbacks, on both engines.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import twilio from 'twilio';
import { addCarrierConnection } from '../../src/cli/carriers.ts';
import { addNumber } from '../../src/commands/add-number.ts';
import { mediaLink } from '../../src/http/media/media-links.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { findMedia } from '../../src/queries/media.ts';
import { RetentionSweep } from '../../src/workers/retention-sweep.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { eventsOf, waitFor } from '../support/messaging.ts';
import { PNG, startMediaHost, type MediaHost } from '../support/media-host.ts';
import { freePort } from '../support/processes.ts';
import { startTelnyxApi, type TelnyxApi } from '../support/telnyx-api.ts';

const TELNYX_LINE = '+15559870001';
const TWILIO_LINE = '+15559870002';
const HANDSET = '+14155550177';
const SID = `AC${'7'.repeat(32)}`;
const TOKEN = 'twilio-media-token';
interface Rig {
  app: TestApp;
  account: TestAccount;
  telnyx: TelnyxApi;
  host: MediaHost;
  telnyxInbound: string;
  twilioInbound: string;
}

async function rig(engine: (typeof ENGINES)[number]): Promise<Rig> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const [telnyx, host] = await Promise.all([startTelnyxApi(), startMediaHost(SID, TOKEN)]);
  const app = await startTestApp(engine, {
    port,
    // The media host is on 127.0.0.1, which the SSRF guard refuses otherwise.
    env: { SWITCHBOARD_PUBLIC_URL: publicUrl, SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
  });
  const account = await app.newAccount('Media');
  const clock = { now: () => Date.now() };
  const deps = { clock, secrets: app.secrets, publicUrl };
  const telnyxCarrier = await addCarrierConnection(
    app.store,
    account.accountId,
    {
      type: 'telnyx',
      apiKey: 'KEY_telnyx_media',
      publicKey: telnyx.publicKey,
      apiBase: telnyx.url,
    },
    deps,
  );
  const twilioCarrier = await addCarrierConnection(
    app.store,
    account.accountId,
    { type: 'twilio', accountSid: SID, authToken: TOKEN, apiBase: host.url },
    deps,
  );
  for (const [phone, carrierId] of [
    [TELNYX_LINE, telnyxCarrier.id],
    [TWILIO_LINE, twilioCarrier.id],
  ] as const) {
    await app.store.write((tx) =>
      addNumber(tx, { accountId: account.accountId, mode: 'live', phone, carrierId }, { clock }),
    );
  }
  return {
    app,
    account,
    telnyx,
    host,
    telnyxInbound: telnyxCarrier.webhookUrls!.inbound,
    twilioInbound: twilioCarrier.webhookUrls!.inbound,
  };
}

const received = (r: Rig, body: string) =>
  waitFor(
    async () =>
      (await eventsOf(r.app.store.db, r.account.accountId, 'live', 'message.received')).find(
        (e) => e.data.body === body,
      ),
    `message.received '${body}'`,
    { timeoutMs: 10_000, intervalMs: 50 },
  );

for (const engine of ENGINES) {
  describe(`the media store (${engine})`, () => {
    let r: Rig;
    let keptUrl: string;
    before(async () => {
      r = await rig(engine);
    });
    after(async () => {
      await r?.app.close();
      await r?.telnyx.close();
      r?.host.server.close();
    });

    test('an inbound MMS through Telnyx arrives with its picture on a signed link, and the oversized and refused items listed as not kept, with why', async () => {
      const res = await r.telnyx.post(r.telnyxInbound, 'message.received', {
        id: 'e8b7b0d2-4b0a-4c1e-9a11-0b6c0c2f1a01',
        direction: 'inbound',
        from: { phone_number: HANDSET },
        to: [{ phone_number: TELNYX_LINE, status: 'webhook_delivered' }],
        text: 'Three things',
        media: [
          { url: `${r.host.url}/small.png`, content_type: 'image/png' },
          { url: `${r.host.url}/big.jpg`, content_type: 'image/jpeg' },
          { url: `${r.host.url}/page.html`, content_type: 'text/html' },
        ],
      });
      assert.equal(res.status, 200);
      const event = await received(r, 'Three things');
      const [picture, big, page] = event.data.media;
      assert.match(
        picture.url,
        new RegExp(`^${r.app.config.publicUrl}/v1/media/med_[^?]+\\?token=`),
      );
      assert.equal(picture.contentType, 'image/png');
      assert.equal(picture.size, PNG.length);
      assert.equal(picture.kept, undefined);
      assert.equal(big.kept, false);
      assert.match(big.reason, /5 MB/);
      assert.equal(big.url, `${r.host.url}/big.jpg`);
      assert.equal(page.kept, false);
      assert.match(page.reason, /text\/html/);
      keptUrl = picture.url;
      const message = await r.account.live.get(`/v1/messages/${event.data.id}`);
      assert.deepEqual(message.body.media, event.data.media);
    });

    test('the link serves the picture without an API key', async () => {
      const res = await fetch(keptUrl);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
    });

    test('an altered, borrowed or ended link is 404', async () => {
      const url = new URL(keptUrl);
      const token = url.searchParams.get('token')!;
      const id = url.pathname.split('/').at(-1)!;
      const altered = new URL(keptUrl);
      altered.searchParams.set(
        'token',
        `${token.slice(0, -3)}${token.endsWith('AAA') ? 'BBB' : 'AAA'}`,
      );
      const expired = mediaLink(r.app.secrets, r.app.config.publicUrl, id, Date.now() - 1);
      const borrowed = keptUrl.replace(id, `${id.slice(0, -1)}${id.endsWith('a') ? 'b' : 'a'}`);
      for (const link of [altered.href, expired, borrowed, `${url.origin}${url.pathname}`]) {
        const res = await fetch(link);
        assert.equal(res.status, 404, link);
        assert.equal(((await res.json()) as { error: { type: string } }).error.type, 'not_found');
      }
    });

    test("an inbound MMS through Twilio is fetched with the account's credentials, through Twilio's redirect", async () => {
      const params = {
        AccountSid: SID,
        MessageSid: `MM${'1'.repeat(32)}`,
        From: HANDSET,
        To: TWILIO_LINE,
        Body: 'From Twilio with a picture',
        NumMedia: '1',
        MediaUrl0: `${r.host.url}/twilio/ME1`,
        MediaContentType0: 'image/png',
      };
      const res = await fetch(r.twilioInbound, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilio.getExpectedTwilioSignature(TOKEN, r.twilioInbound, params),
        },
        body: new URLSearchParams(params).toString(),
      });
      assert.equal(res.status, 200);
      const event = await received(r, 'From Twilio with a picture');
      assert.equal(event.data.media[0].size, PNG.length);
      assert.ok(r.host.auths.length > 0);
      const picture = await fetch(event.data.media[0].url);
      assert.deepEqual(Buffer.from(await picture.arrayBuffer()), PNG);
    });

    test('media past the retention period are removed by the sweep, and their links are 404', async () => {
      const id = new URL(keptUrl).pathname.split('/').at(-1)!;
      assert.ok(await findMedia(r.app.store.db, id));
      const counts = await new RetentionSweep({
        store: r.app.store,
        clock: { now: () => Date.now() + 31 * 24 * 3_600_000 },
        logger: createLogger('silent'),
        retentionDays: 30,
      }).sweep();
      assert.ok(counts.media >= 2, JSON.stringify(counts));
      assert.equal(await findMedia(r.app.store.db, id), undefined);
      const fresh = mediaLink(r.app.secrets, null, id, Date.now() + 60_000);
      assert.equal((await fetch(`${r.app.url}${fresh}`)).status, 404);
    });
  });
}
