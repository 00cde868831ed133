// A webhook receiver: verifies every delivery over the raw bytes, answers at
// once, and handles each event id only once (deliveries are at-least-once).
//
//   SWITCHBOARD_WEBHOOK_SECRET=whsec_… PORT=3000 node examples/webhook-receiver.ts
//
// Then register http(s)://<this host>:3000/webhooks as an endpoint. Each event
// handled is printed as one JSON line.
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@switchboard/sdk';

const secret = process.env.SWITCHBOARD_WEBHOOK_SECRET;
if (!secret) {
  console.error('Set SWITCHBOARD_WEBHOOK_SECRET to the endpoint secret (whsec_…).');
  process.exit(2);
}
const port = Number(process.env.PORT ?? 3000);

// In production keep these in your database (with a unique index on the id), so
// a redelivery after a restart is still recognised.
const seen = new Set<string>();

const server = createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url !== '/webhooks') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  let event;
  try {
    event = await verifyWebhook(
      raw,
      req.headers['x-service-signature'] as string | undefined,
      secret,
    );
  } catch (error) {
    const reason = error instanceof WebhookVerificationError ? error.reason : 'error';
    console.error(JSON.stringify({ rejected: reason }));
    res.writeHead(400).end();
    return;
  }
  // Acknowledge first: slow work belongs after the answer, or the delivery times out and is retried.
  res.writeHead(200).end();
  if (seen.has(event.id)) return;
  seen.add(event.id);
  switch (event.type) {
    case 'message.received':
      console.log(
        JSON.stringify({
          id: event.id,
          type: event.type,
          from: event.data.from,
          body: event.data.body,
        }),
      );
      break;
    case 'message.delivered':
    case 'message.failed':
      console.log(
        JSON.stringify({
          id: event.id,
          type: event.type,
          message: event.data.id,
          status: event.data.status,
        }),
      );
      break;
    default:
      console.log(JSON.stringify({ id: event.id, type: event.type }));
  }
});

server.listen(port, '127.0.0.1', () =>
  console.error(`listening on http://127.0.0.1:${port}/webhooks`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
