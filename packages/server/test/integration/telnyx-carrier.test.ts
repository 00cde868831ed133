// A live number on a Telnyx connection: texts and MMS leave through `POST /v2/messages`, and
// Ed25519-signed webhooks move them and bring inbound texts, through the whole service on
// both engines. Telnyx's side answers as its OpenAPI description does (support/telnyx-api.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addNumber } from '../../src/commands/add-number.ts';
import { addCarrierConnection } from '../../src/cli/carriers.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { eventsOf, waitFor, waitForStatus } from '../support/messaging.ts';
import { freePort } from '../support/processes.ts';
import { startTelnyxApi, type TelnyxApi } from '../support/telnyx-api.ts';

const KEY = 'KEY0123456789ABCDEF_secret';
const LINE = '+15559876543';
const HANDSET = '+14155550188';

interface Rig {
  app: TestApp;
  account: TestAccount;
  telnyx: TelnyxApi;
  carrierId: string;
  statusUrl: string;
  inboundUrl: string;
}

async function rig(engine: (typeof ENGINES)[number]): Promise<Rig> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const telnyx = await startTelnyxApi();
  const app = await startTestApp(engine, { port, env: { SWITCHBOARD_PUBLIC_URL: publicUrl } });
  const account = await app.newAccount('Telnyx');
  const clock = { now: () => Date.now() };
  const carrier = await addCarrierConnection(
    app.store,
    account.accountId,
    {
      type: 'telnyx',
      apiKey: KEY,
      publicKey: telnyx.publicKey,
      messagingProfileId: '40017f5b-7dd6-4f8b-a1b2-96d7e8d1b1a1',
      apiBase: telnyx.url,
    },
    { clock, secrets: app.secrets, publicUrl },
  );
  await app.store.write((tx) =>
    addNumber(
      tx,
      { accountId: account.accountId, mode: 'live', phone: LINE, carrierId: carrier.id },
      { clock },
    ),
  );
  const { status, inbound } = carrier.webhookUrls!;
  return { app, account, telnyx, carrierId: carrier.id, statusUrl: status, inboundUrl: inbound };
}

const send = async (r: Rig, body: Record<string, unknown>) => {
  const res = await r.account.live.post('/v1/messages', { from: LINE, to: HANDSET, ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string };
};

/** The id Telnyx gave the message whose text is `text`: its carrier reference, once recorded. */
async function telnyxIdOf(r: Rig, text: string): Promise<string> {
  const row = await waitFor(
    async () =>
      (await r.app.store.db
        .selectFrom('message_recipients')
        .innerJoin('messages', 'messages.id', 'message_recipients.message_id')
        .select('message_recipients.carrier_ref')
        .where('messages.body', '=', text)
        .where('message_recipients.carrier_ref', 'is not', null)
        .executeTakeFirst()) ?? undefined,
    'the carrier reference recorded',
    { timeoutMs: 10_000, intervalMs: 20 },
  );
  return row.carrier_ref!.split('/')[1]!;
}

const outbound = (id: string, status: string, errors: unknown[] = []) => ({
  id,
  direction: 'outbound',
  from: { phone_number: LINE },
  to: [{ phone_number: HANDSET, status }],
  errors,
});

for (const engine of ENGINES) {
  describe(`live messaging over Telnyx (${engine})`, () => {
    let r: Rig;
    before(async () => {
      r = await rig(engine);
    });
    after(async () => {
      await r?.app.close();
      await r?.telnyx.close();
    });

    test('a text leaves as one POST /v2/messages with the API key, profile and webhook URL, and message.sent then message.finalized deliver it', async () => {
      const sent = await send(r, { body: 'Hello over Telnyx' });
      const id = await telnyxIdOf(r, 'Hello over Telnyx');
      const request = r.telnyx.requests.find((q) => q.body.text === 'Hello over Telnyx')!;
      assert.equal(request.authorization, `Bearer ${KEY}`);
      assert.equal(request.body.from, LINE);
      assert.equal(request.body.to, HANDSET);
      assert.equal(request.body.messaging_profile_id, '40017f5b-7dd6-4f8b-a1b2-96d7e8d1b1a1');
      assert.equal(request.body.webhook_url, r.statusUrl);
      assert.equal(
        (await r.telnyx.post(r.statusUrl, 'message.sent', outbound(id, 'sent'))).status,
        200,
      );
      await waitForStatus(r.account.live, sent.id, 'sent', { timeoutMs: 10_000 });
      const res = await r.telnyx.post(r.statusUrl, 'message.finalized', outbound(id, 'delivered'));
      assert.equal(res.status, 200);
      await waitForStatus(r.account.live, sent.id, 'delivered', { timeoutMs: 10_000 });
    });

    test('an MMS leaves with media_urls, and a finalized delivery_failed with 40001 fails it as invalid_number', async () => {
      const media = 'https://example.com/dog.png';
      const sent = await send(r, { body: 'A dog', mediaUrls: [media] });
      const id = await telnyxIdOf(r, 'A dog');
      const request = r.telnyx.requests.find((q) => q.body.text === 'A dog')!;
      assert.deepEqual(request.body.media_urls, [media]);
      const res = await r.telnyx.post(
        r.statusUrl,
        'message.finalized',
        outbound(id, 'delivery_failed', [{ code: '40001', title: 'Not routable' }]),
      );
      assert.equal(res.status, 200);
      const failed = await waitForStatus(r.account.live, sent.id, 'failed', { timeoutMs: 10_000 });
      assert.equal(failed.failureReason, 'invalid_number');
    });

    test("Telnyx's refusal (400, 40310 invalid 'to') fails the message as invalid_number", async () => {
      r.telnyx.refuse(400, '40310', "Invalid 'to' address");
      const sent = await send(r, { body: 'Refused' });
      const failed = await waitForStatus(r.account.live, sent.id, 'failed', { timeoutMs: 10_000 });
      assert.equal(failed.failureReason, 'invalid_number');
    });

    test('an inbound message.received becomes message.received on the line', async () => {
      const res = await r.telnyx.post(r.inboundUrl, 'message.received', {
        id: 'b301ed3f-1490-491f-995f-6e64e69674d4',
        direction: 'inbound',
        from: { phone_number: HANDSET },
        to: [{ phone_number: LINE, status: 'webhook_delivered' }],
        text: 'Hi from Telnyx',
        media: [],
      });
      assert.equal(res.status, 200);
      const event = await waitFor(
        async () =>
          (await eventsOf(r.app.store.db, r.account.accountId, 'live', 'message.received')).find(
            (e) => e.data.body === 'Hi from Telnyx',
          ),
        'message.received',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      assert.equal(event.data.from, HANDSET);
    });

    test('a message.received Telnyx posts again (same id) is received once, even twice at once; repeats answer 200 and change nothing', async () => {
      const payload = {
        id: '7d2f8b1e-0c4a-4e59-9a61-3b5f2c8d9e70',
        direction: 'inbound',
        from: { phone_number: HANDSET },
        to: [{ phone_number: LINE, status: 'webhook_delivered' }],
        text: 'Said once on Telnyx',
        media: [],
      };
      // Two at once pass the route's look-up together: the unique key decides between them.
      const answers = await Promise.all([
        r.telnyx.post(r.inboundUrl, 'message.received', payload),
        r.telnyx.post(r.inboundUrl, 'message.received', payload),
      ]);
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200],
      );
      assert.equal((await r.telnyx.post(r.inboundUrl, 'message.received', payload)).status, 200);
      const received = await eventsOf(
        r.app.store.db,
        r.account.accountId,
        'live',
        'message.received',
      );
      assert.equal(received.filter((e) => e.data.body === 'Said once on Telnyx').length, 1);
      const rows = await r.app.store.db
        .selectFrom('messages')
        .select('id')
        .where('body', '=', 'Said once on Telnyx')
        .execute();
      assert.equal(rows.length, 1);
    });

    test('a message.finalized Telnyx posts again answers 200 and records message.delivered once', async () => {
      const sent = await send(r, { body: 'Finalized once' });
      const id = await telnyxIdOf(r, 'Finalized once');
      const finalized = outbound(id, 'delivered');
      assert.equal((await r.telnyx.post(r.statusUrl, 'message.finalized', finalized)).status, 200);
      assert.equal((await r.telnyx.post(r.statusUrl, 'message.finalized', finalized)).status, 200);
      await waitForStatus(r.account.live, sent.id, 'delivered', { timeoutMs: 10_000 });
      const delivered = await eventsOf(
        r.app.store.db,
        r.account.accountId,
        'live',
        'message.delivered',
      );
      assert.equal(delivered.filter((e) => e.data.id === sent.id).length, 1);
    });

    test('a webhook signed by another key, or stale past the tolerance, gets 403 and changes nothing', async () => {
      const sent = await send(r, { body: 'Guarded' });
      const id = await telnyxIdOf(r, 'Guarded');
      const forged = await r.telnyx.post(
        r.statusUrl,
        'message.finalized',
        outbound(id, 'delivered'),
        {
          forged: true,
        },
      );
      assert.equal(forged.status, 403);
      const stale = await r.telnyx.post(
        r.statusUrl,
        'message.finalized',
        outbound(id, 'delivered'),
        {
          timestamp: Math.floor(Date.now() / 1000) - 600,
        },
      );
      assert.equal(stale.status, 403);
      const inbound = await r.telnyx.post(
        r.inboundUrl,
        'message.received',
        { from: { phone_number: HANDSET }, to: [{ phone_number: LINE }], text: 'forged' },
        { forged: true },
      );
      assert.equal(inbound.status, 403);
      const message = (await r.account.live.get(`/v1/messages/${sent.id}`)).body as {
        status: string;
      };
      assert.equal(message.status, 'queued');
      const received = await eventsOf(
        r.app.store.db,
        r.account.accountId,
        'live',
        'message.received',
      );
      assert.ok(!received.some((e) => e.data.body === 'forged'));
    });

    test('a medium on a private address is not fetched (the SSRF guard), and the message still arrives saying why', async () => {
      const res = await r.telnyx.post(r.inboundUrl, 'message.received', {
        id: '0f0c6b43-95a1-4c3f-b1f7-4d6a3c6e2b10',
        direction: 'inbound',
        from: { phone_number: HANDSET },
        to: [{ phone_number: LINE, status: 'webhook_delivered' }],
        text: 'From inside',
        media: [{ url: `${r.telnyx.url}/media/cat.jpg`, content_type: 'image/jpeg' }],
      });
      assert.equal(res.status, 200);
      const event = await waitFor(
        async () =>
          (await eventsOf(r.app.store.db, r.account.accountId, 'live', 'message.received')).find(
            (e) => e.data.body === 'From inside',
          ),
        'message.received',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      assert.equal(event.data.media[0].kept, false);
      assert.equal(event.data.media[0].url, `${r.telnyx.url}/media/cat.jpg`);
      assert.match(event.data.media[0].reason, /Could not be fetched/);
    });
  });
}
