// A Twilio connection respects the provider's 429: its sends wait (no attempt spent) for the
// Retry-After, then leave; a 5xx is a fault worth retrying. The provider here is a plain
// node:http server answering as Twilio's Messages API does.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { CarrierRejection, CarrierUnavailable } from '../../src/carriers/carrier.ts';
import { twilioAdapter } from '../../src/carriers/twilio/twilio-carrier.ts';
import type { ConnectionAdapter } from '../../src/carriers/live/live-carrier.ts';
import { createLogger } from '../../src/lib/logger.ts';

const SID = `AC${'0'.repeat(32)}`;
let answers: ((res: ServerResponse) => void)[] = [];
const seen: { url: string; form: URLSearchParams; auth: string }[] = [];
const server = createServer((req: IncomingMessage, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    seen.push({ url: req.url!, form: new URLSearchParams(body), auth: req.headers.authorization! });
    const answer = answers.shift();
    if (answer) answer(res);
    else res.writeHead(500).end();
  });
});
let adapter: ConnectionAdapter;

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (res: ServerResponse) =>
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify(body));

const submission = {
  messageId: 'msg_1',
  accountId: 'acc_1',
  mode: 'live' as const,
  from: '+15551234567',
  to: '+14155550123',
  body: 'hi',
  mediaUrls: ['https://example.com/a.png', 'https://example.com/b.png'],
  segments: 1,
};

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  adapter = twilioAdapter({
    id: 'car_1',
    settings: {
      accountSid: SID,
      messagingServiceSid: null,
      apiBase: `http://127.0.0.1:${port}`,
      window: 10,
    },
    secret: { authToken: 'token-token' },
    logger: createLogger('silent'),
    publicUrl: 'https://sms.example.com',
    onSubmitted: () => () => {},
  });
});
after(async () => {
  await adapter.stop();
  server.close();
});

test('a send is one form POST with Basic auth, every media URL and the status callback of its connection', async () => {
  answers = [json(201, { sid: 'MM123' })];
  const result = await adapter.submit(submission);
  assert.equal(result.carrierRef, 'MM123');
  const request = seen.at(-1)!;
  assert.equal(request.url, `/2010-04-01/Accounts/${SID}/Messages.json`);
  assert.equal(request.auth, `Basic ${Buffer.from(`${SID}:token-token`).toString('base64')}`);
  assert.deepEqual(request.form.getAll('MediaUrl'), submission.mediaUrls);
  assert.equal(
    request.form.get('StatusCallback'),
    'https://sms.example.com/v1/carriers/car_1/status',
  );
});

test('a 429 pauses the connection for Retry-After: sends wait without reaching Twilio, then leave', async () => {
  answers = [json(429, { code: 20429, message: 'Too Many Requests' }, { 'retry-after': '1' })];
  await assert.rejects(adapter.submit(submission), CarrierUnavailable);
  const count = seen.length;
  await assert.rejects(adapter.submit(submission), CarrierUnavailable);
  assert.equal(seen.length, count, 'no request while paused');
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  answers = [json(201, { sid: 'SM456' })];
  assert.equal((await adapter.submit(submission)).carrierRef, 'SM456');
});

test('a 400 with 21211 is invalid_number for good; a 5xx is a fault retried later', async () => {
  answers = [json(400, { code: 21211, message: "The 'To' number is not valid." })];
  await assert.rejects(adapter.submit(submission), (e: unknown) => {
    assert.ok(e instanceof CarrierRejection);
    assert.equal(e.reason, 'invalid_number');
    return true;
  });
  answers = [json(503, { message: 'unavailable' })];
  await assert.rejects(adapter.submit(submission), (e: unknown) => {
    assert.ok(!(e instanceof CarrierRejection) && !(e instanceof CarrierUnavailable));
    return true;
  });
  assert.match(adapter.state().lastError ?? '', /503/);
});
