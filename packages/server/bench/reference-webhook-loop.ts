// The bench's reference for webhook delivery: the least a signed delivery can cost in Node.
// A loop that signs each envelope as Switchboard does (Stripe-style and Standard Webhooks
// HMAC-SHA256) and POSTs it with undici over keep-alive connections, as many in flight as
// Switchboard's worker allows, spread over the same endpoints, with no database at all.
//   node reference-webhook-loop.ts BASE_URL TOTAL IN_FLIGHT ENDPOINTS  → prints one JSON line
import { createHmac, randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';

const [base = 'http://127.0.0.1:1', totalArg = '1000', inFlightArg = '40', endpointsArg = '4'] =
  process.argv.slice(2);
const total = Number(totalArg);
const endpoints = Number(endpointsArg);
// The same pool settings as the worker's dispatcher (workers/background.ts).
const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 16 });
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const key = Buffer.from(secret.slice('whsec_'.length), 'base64');

let sent = 0;
let errors = 0;

async function deliver(i: number): Promise<void> {
  const id = `evt_reference${String(i).padStart(8, '0')}`;
  const body = JSON.stringify({
    id,
    type: 'message.received',
    createdAt: new Date().toISOString(),
    data: {
      id: `msg_reference${i}`,
      object: 'message',
      body: 'Reference delivery',
      status: 'received',
    },
  });
  const t = String(Math.floor(Date.now() / 1000));
  const stripe = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  const standard = createHmac('sha256', key).update(`${id}.${t}.${body}`).digest('base64');
  const response = await request(`${base}/fanout/${i % endpoints}`, {
    method: 'POST',
    body,
    dispatcher,
    headers: {
      'content-type': 'application/json',
      'x-service-signature': `t=${t},v1=${stripe}`,
      'webhook-id': id,
      'webhook-timestamp': t,
      'webhook-signature': `v1,${standard}`,
    },
  });
  await response.body.text();
  if (response.statusCode !== 200) errors++;
}

const started = performance.now();
await Promise.all(
  Array.from({ length: Number(inFlightArg) }, async () => {
    while (sent < total) {
      await deliver(sent++).catch(() => errors++);
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ total, seconds, perSecond: total / seconds, errors })}\n`);
await dispatcher.close();
