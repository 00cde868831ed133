// A live number on a Twilio connection: texts and MMS leave through the Messages API of a
// Twilio emulator the project did not write (npm `emulate`), its signed status callbacks and
// inbound texts come back to the service's webhook URLs, on both engines.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEmulator, type Emulator } from 'emulate';
import twilio from 'twilio';
import { addNumber } from '../../src/commands/add-number.ts';
import { addCarrierConnection, listCarrierConnections } from '../../src/cli/carriers.ts';
import { postChecked } from '../support/contract.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { eventsOf, waitFor, waitForStatus } from '../support/messaging.ts';
import { freePort } from '../support/processes.ts';

const SID = 'AC00000000000000000000000000000000';
const TOKEN = 'twilio_test_auth_token';
const LINE = '+15551234567';
/** A live number of the account that Twilio does not know: the API refuses to send from it. */
const FOREIGN = '+15557654321';
const HANDSET = '+14155550123';

interface Rig {
  app: TestApp;
  account: TestAccount;
  twilio: Emulator;
  carrierId: string;
  statusUrl: string;
  inboundUrl: string;
}

async function rig(engine: (typeof ENGINES)[number]): Promise<Rig> {
  const port = await freePort();
  const twilioPort = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const app = await startTestApp(engine, {
    port,
    env: { SWITCHBOARD_PUBLIC_URL: publicUrl },
  });
  const account = await app.newAccount('Twilio');
  const clock = { now: () => Date.now() };
  const carrier = await addCarrierConnection(
    app.store,
    account.accountId,
    {
      type: 'twilio',
      accountSid: SID,
      authToken: TOKEN,
      apiBase: `http://127.0.0.1:${twilioPort}`,
    },
    { clock, secrets: app.secrets, publicUrl },
  );
  const deps = { clock, seal: (s: string) => app.secrets.seal(s) };
  for (const phone of [LINE, FOREIGN]) {
    await app.store.write((tx) =>
      addNumber(
        tx,
        { accountId: account.accountId, mode: 'live', phone, carrierId: carrier.id },
        deps,
      ),
    );
  }
  const { status, inbound } = carrier.webhookUrls!;
  const emulator = await createEmulator({
    service: 'twilio',
    port: twilioPort,
    hostname: '127.0.0.1',
    seed: {
      twilio: {
        account: { sid: SID, auth_token: TOKEN, friendly_name: 'Switchboard test' },
        phone_numbers: [{ phone_number: LINE, friendly_name: 'Line', sms_url: inbound }],
      },
    },
  });
  return {
    app,
    account,
    twilio: emulator,
    carrierId: carrier.id,
    statusUrl: status,
    inboundUrl: inbound,
  };
}

/** Asks the emulator (as Twilio's simulator) to report a status, which it posts, signed, to the callback. */
async function simulateStatus(r: Rig, sid: string, status: string): Promise<void> {
  const res = await fetch(`${r.twilio.url}/_twilio/simulate/message-status`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ MessageSid: sid, Status: status }).toString(),
  });
  assert.equal(res.status, 200, await res.text());
}

/** The emulator's record of the message sent to `to` last. */
async function twilioMessageTo(r: Rig, to: string) {
  const res = await fetch(
    `${r.twilio.url}/2010-04-01/Accounts/${SID}/Messages.json?To=${encodeURIComponent(to)}`,
    { headers: { authorization: `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}` } },
  );
  const list = (await res.json()) as { messages: Record<string, string>[] };
  return list.messages[0];
}

const send = async (r: Rig, body: Record<string, unknown>) => {
  const res = await r.account.live.post('/v1/messages', { from: LINE, to: HANDSET, ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string };
};

/** A callback signed with Twilio's own library, as Twilio signs it. */
async function postSigned(url: string, params: Record<string, string>, token = TOKEN) {
  const signature = twilio.getExpectedTwilioSignature(token, url, params);
  return postChecked(url, {
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': signature,
    },
    body: new URLSearchParams(params).toString(),
  });
}

for (const engine of ENGINES) {
  describe(`live messaging over Twilio (${engine})`, () => {
    let r: Rig;
    before(async () => {
      r = await rig(engine);
    });
    after(async () => {
      await r?.app.close();
      await r?.twilio.close();
    });

    test('the connection names the webhook URLs to paste into Twilio, on SWITCHBOARD_PUBLIC_URL, and never the token', async () => {
      const { data } = await listCarrierConnections(
        r.app.store,
        r.account.accountId,
        { now: () => Date.now() },
        r.app.config.publicUrl,
      );
      const view = data.find((v) => v.id === r.carrierId)!;
      assert.equal(view.type, 'twilio');
      assert.equal(view.accountSid, SID);
      assert.deepEqual(view.webhookUrls, {
        status: `${r.app.config.publicUrl}/v1/carriers/${r.carrierId}/status`,
        inbound: `${r.app.config.publicUrl}/v1/carriers/${r.carrierId}/inbound`,
      });
      assert.ok(!JSON.stringify(data).includes(TOKEN));
    });

    test('a text leaves through the Messages API with its SID as the reference, and a signed status callback delivers it', async () => {
      const sent = await send(r, { body: 'Hello over Twilio' });
      const theirs = await waitFor(
        async () => {
          const m = await twilioMessageTo(r, HANDSET);
          return m?.body === 'Hello over Twilio' ? m : undefined;
        },
        'the message at Twilio',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      assert.equal(theirs.from, LINE);
      await simulateStatus(r, theirs.sid!, 'sent');
      await waitForStatus(r.account.live, sent.id, 'sent', { timeoutMs: 10_000 });
      await simulateStatus(r, theirs.sid!, 'delivered');
      const delivered = await waitForStatus(r.account.live, sent.id, 'delivered', {
        timeoutMs: 10_000,
      });
      assert.equal(delivered.status, 'delivered');
      const events = await eventsOf(
        r.app.store.db,
        r.account.accountId,
        'live',
        'message.delivered',
      );
      assert.ok(events.some((e) => e.data.id === sent.id));
    });

    test('an MMS leaves with its media URLs, and an undelivered callback fails it as carrier_rejected', async () => {
      const media = 'https://example.com/cat.jpg';
      const sent = await send(r, { body: 'A picture', mediaUrls: [media] });
      const theirs = await waitFor(
        async () => {
          const m = await twilioMessageTo(r, HANDSET);
          return m?.body === 'A picture' ? m : undefined;
        },
        'the MMS at Twilio',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      assert.equal(theirs.num_media, '1');
      assert.match(theirs.sid!, /^MM/);
      await simulateStatus(r, theirs.sid!, 'undelivered');
      const failed = await waitForStatus(r.account.live, sent.id, 'failed', { timeoutMs: 10_000 });
      assert.equal(failed.failureReason, 'carrier_rejected');
    });

    test('a failed callback with error 30005 (unknown destination) fails the message as invalid_number', async () => {
      const sent = await send(r, { body: 'To nobody' });
      const theirs = await waitFor(
        async () => {
          const m = await twilioMessageTo(r, HANDSET);
          return m?.body === 'To nobody' ? m : undefined;
        },
        'the message at Twilio',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      const res = await postSigned(r.statusUrl, {
        AccountSid: SID,
        MessageSid: theirs.sid!,
        MessageStatus: 'failed',
        ErrorCode: '30005',
      });
      assert.equal(res.status, 200);
      const failed = await waitForStatus(r.account.live, sent.id, 'failed', { timeoutMs: 10_000 });
      assert.equal(failed.failureReason, 'invalid_number');
    });

    test("Twilio's refusal to send (21606, a From it does not own) fails the message as carrier_rejected", async () => {
      const res = await r.account.live.post('/v1/messages', {
        from: FOREIGN,
        to: HANDSET,
        body: 'From elsewhere',
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const failed = await waitForStatus(
        r.account.live,
        (res.body as { id: string }).id,
        'failed',
        {
          timeoutMs: 10_000,
        },
      );
      assert.equal(failed.failureReason, 'carrier_rejected');
    });

    test('an inbound text from Twilio becomes message.received on the line', async () => {
      const res = await fetch(`${r.twilio.url}/_twilio/simulate/inbound-message`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ To: LINE, From: HANDSET, Body: 'Hi from a phone' }).toString(),
      });
      assert.equal(res.status, 201, await res.text());
      const event = await waitFor(
        async () =>
          (await eventsOf(r.app.store.db, r.account.accountId, 'live', 'message.received')).find(
            (e) => e.data.body === 'Hi from a phone',
          ),
        'message.received',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      assert.equal(event.data.from, HANDSET);
      assert.equal(event.data.to, LINE);
    });

    test('a callback with a forged signature gets 403 and changes nothing', async () => {
      const sent = await send(r, { body: 'Not forged' });
      const theirs = await waitFor(
        async () => {
          const m = await twilioMessageTo(r, HANDSET);
          return m?.body === 'Not forged' ? m : undefined;
        },
        'the message at Twilio',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      const before = (await r.account.live.get(`/v1/messages/${sent.id}`)).body as {
        status: string;
      };
      const params = { AccountSid: SID, MessageSid: theirs.sid!, MessageStatus: 'delivered' };
      const forged = await postSigned(r.statusUrl, params, 'not-the-auth-token');
      assert.equal(forged.status, 403);
      const inbound = await postSigned(
        r.inboundUrl,
        { AccountSid: SID, From: HANDSET, To: LINE, Body: 'forged' },
        'not-the-auth-token',
      );
      assert.equal(inbound.status, 403);
      const unsigned = await fetch(r.statusUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(params).toString(),
      });
      assert.equal(unsigned.status, 403);
      const afterwards = (await r.account.live.get(`/v1/messages/${sent.id}`)).body as {
        status: string;
      };
      assert.equal(afterwards.status, before.status);
      assert.notEqual(afterwards.status, 'delivered');
      const received = await eventsOf(
        r.app.store.db,
        r.account.accountId,
        'live',
        'message.received',
      );
      assert.ok(!received.some((e) => e.data.body === 'forged'));
    });

    test('an inbound text Twilio posts again (same MessageSid) is received once; the repeat answers 200 and changes nothing', async () => {
      const params = {
        AccountSid: SID,
        MessageSid: 'SM5c1d0f0e2a3b4c5d6e7f8a9b0c1d2e3f',
        From: HANDSET,
        To: LINE,
        Body: 'Said once',
        NumMedia: '0',
      };
      assert.equal((await postSigned(r.inboundUrl, params)).status, 200);
      const repeat = await postSigned(r.inboundUrl, params);
      assert.equal(repeat.status, 200);
      assert.match(await repeat.text(), /<Response\/>/);
      const received = await eventsOf(
        r.app.store.db,
        r.account.accountId,
        'live',
        'message.received',
      );
      assert.equal(received.filter((e) => e.data.body === 'Said once').length, 1);
      const rows = await r.app.store.db
        .selectFrom('messages')
        .select('id')
        .where('body', '=', 'Said once')
        .execute();
      assert.equal(rows.length, 1);
    });

    test('a status callback Twilio posts again answers 200 and records its event once', async () => {
      const sent = await send(r, { body: 'Delivered once' });
      const theirs = await waitFor(
        async () => {
          const m = await twilioMessageTo(r, HANDSET);
          return m?.body === 'Delivered once' ? m : undefined;
        },
        'the message at Twilio',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      const params = { AccountSid: SID, MessageSid: theirs.sid!, MessageStatus: 'delivered' };
      assert.equal((await postSigned(r.statusUrl, params)).status, 200);
      assert.equal((await postSigned(r.statusUrl, params)).status, 200);
      await waitForStatus(r.account.live, sent.id, 'delivered', { timeoutMs: 10_000 });
      const delivered = await eventsOf(
        r.app.store.db,
        r.account.accountId,
        'live',
        'message.delivered',
      );
      assert.equal(delivered.filter((e) => e.data.id === sent.id).length, 1);
    });

    test('a status callback for a message it does not know answers 503, so Twilio posts it again later', async () => {
      const res = await postSigned(r.statusUrl, {
        AccountSid: SID,
        MessageSid: 'SM0123456789abcdef0123456789abcdef',
        MessageStatus: 'delivered',
      });
      assert.equal(res.status, 503);
    });
  });
}
