// Rotating a webhook endpoint's secret: both secrets sign for 24 hours, each signature verifying
// with its own by the SDK and by `standardwebhooks`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '../../../sdk/src/webhooks/verify.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { startReceiver, type Receiver, type ReceivedRequest } from '../support/receiver.ts';
import { createEndpoint, ShiftedClock, WEBHOOK_SECRET } from '../support/webhooks.ts';

/** Does the header verify with this secret, according to the SDK? */
async function sdkAccepts(
  raw: Buffer,
  header: string,
  secret: string,
  now?: Date,
): Promise<boolean> {
  try {
    await verifyWebhook(raw, header, secret, now ? { now } : {});
    return true;
  } catch {
    return false;
  }
}

/** Does this `webhook-signature` value verify with this secret, according to `standardwebhooks`? */
function standardAccepts(request: ReceivedRequest, signature: string, secret: string): boolean {
  try {
    new Webhook(secret.slice('whsec_'.length)).verify(request.text, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': signature,
    });
    return true;
  } catch {
    return false;
  }
}

/** The `t` and the `v1` entries of an `X-Service-Signature` value. */
function parseServiceSignature(header: string): { t: string; v1: string[] } {
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  assert.ok(t, `no t= in ${header}`);
  return { t, v1: parts.filter(([k]) => k === 'v1').map(([, v]) => v!) };
}

for (const engine of ENGINES) {
  describe(`webhook secret rotation [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let receiver: Receiver;
    // Real time until the last test moves it a day on.
    const clock = new ShiftedClock();
    before(async () => {
      receiver = await startReceiver();
      t = await startTestApp(engine, { env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' }, clock });
      acct = await t.newAccount();
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    /** Creates a contact and returns the delivery `path` receives for it. */
    async function deliveryFor(path: string): Promise<ReceivedRequest> {
      const before = receiver.at(path).length;
      const res = await acct.test.post('/v1/contacts', { phone: '+14155550999' });
      assert.equal(res.status, 201);
      const requests = await receiver.waitFor(path, before + 1);
      const request = requests[before]!;
      assert.equal(JSON.parse(request.text).data.id, res.body.id);
      return request;
    }

    test('rotate_secret returns a new secret; the next deliveries carry one signature per secret, each verifying with its own', async () => {
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/rotate`, [
        'contact.created',
      ]);
      const oldSecret = endpoint.secret;

      const beforeRotation = await deliveryFor('/rotate');
      const single = parseServiceSignature(String(beforeRotation.headers['x-service-signature']));
      assert.equal(single.v1.length, 1, 'one v1= before any rotation');
      assert.equal(String(beforeRotation.headers['webhook-signature']).split(' ').length, 1);

      const rotated = await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`);
      assert.equal(rotated.status, 200, rotated.text);
      const newSecret: string = rotated.body.secret;
      assert.match(newSecret, WEBHOOK_SECRET);
      assert.notEqual(newSecret, oldSecret);
      assert.equal(rotated.body.id, endpoint.id);
      const fetched = await acct.test.get(`/v1/webhook_endpoints/${endpoint.id}`);
      assert.equal('secret' in fetched.body, false, 'retrieve still hides the secret');

      const request = await deliveryFor('/rotate');
      const header = String(request.headers['x-service-signature']);
      const { t: ts, v1 } = parseServiceSignature(header);
      assert.equal(v1.length, 2, `two v1= during the rotation: ${header}`);
      // Each entry verifies with exactly one of the secrets, and each secret has its entry.
      const verdicts = await Promise.all(
        v1.map(async (sig) => ({
          old: await sdkAccepts(request.raw, `t=${ts},v1=${sig}`, oldSecret),
          new: await sdkAccepts(request.raw, `t=${ts},v1=${sig}`, newSecret),
        })),
      );
      assert.deepEqual(
        verdicts.map((v) => [v.old, v.new]).sort(),
        [
          [false, true],
          [true, false],
        ],
        'one entry per secret',
      );
      // A receiver holding either secret accepts the whole header.
      assert.equal(await sdkAccepts(request.raw, header, oldSecret), true);
      assert.equal(await sdkAccepts(request.raw, header, newSecret), true);

      const standard = String(request.headers['webhook-signature']).split(' ');
      assert.equal(standard.length, 2, 'two webhook-signature entries during the rotation');
      const standardVerdicts = standard.map((sig) => [
        standardAccepts(request, sig, oldSecret),
        standardAccepts(request, sig, newSecret),
      ]);
      assert.deepEqual(standardVerdicts.sort(), [
        [false, true],
        [true, false],
      ]);
    });

    test('a second rotation drops the first secret: only the two newest sign', async () => {
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/rotate-twice`, [
        'contact.created',
      ]);
      const first = endpoint.secret;
      const second = (await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`))
        .body.secret as string;
      const third = (await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`))
        .body.secret as string;
      assert.equal(new Set([first, second, third]).size, 3);
      const request = await deliveryFor('/rotate-twice');
      const header = String(request.headers['x-service-signature']);
      assert.equal(parseServiceSignature(header).v1.length, 2);
      assert.equal(await sdkAccepts(request.raw, header, third), true);
      assert.equal(await sdkAccepts(request.raw, header, second), true);
      assert.equal(await sdkAccepts(request.raw, header, first), false, 'the first secret is gone');
    });

    test('24 hours after a rotation the old secret no longer signs', async () => {
      const endpoint = await createEndpoint(acct.test, `${receiver.url}/expiry`, [
        'contact.created',
      ]);
      const old = endpoint.secret;
      const rotated = await acct.test.post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`);
      const current: string = rotated.body.secret;
      clock.advanceBy(24 * 60 * 60 * 1000 + 1000);
      const request = await deliveryFor('/expiry');
      const header = String(request.headers['x-service-signature']);
      assert.equal(parseServiceSignature(header).v1.length, 1, header);
      const now = new Date(clock.now());
      assert.equal(await sdkAccepts(request.raw, header, current, now), true);
      assert.equal(await sdkAccepts(request.raw, header, old, now), false);
      assert.equal(String(request.headers['webhook-signature']).split(' ').length, 1);
    });
  });
}
