// Sends a group text and waits until every participant's receipt is in.
//
//   SWITCHBOARD_API_KEY=sk_test_… FROM=+16175550112 TO=+14155550123,+14155550124 \
//     node examples/send-group-text.ts "Team dinner at 7"
//
// SWITCHBOARD_BASE_URL defaults to http://127.0.0.1:8080/v1. Exits 0 when every
// participant got the message, 1 when any failed or the receipts took too long.
import { Switchboard } from '@switchboard/sdk';

const { SWITCHBOARD_API_KEY: key, FROM: from, TO: to } = process.env;
if (!key || !from || !to) {
  console.error('Set SWITCHBOARD_API_KEY, FROM and TO (comma-separated numbers).');
  process.exit(2);
}
const client = new Switchboard(key, {
  ...(process.env.SWITCHBOARD_BASE_URL ? { baseUrl: process.env.SWITCHBOARD_BASE_URL } : {}),
});
const body = process.argv[2] ?? 'Hello from Switchboard';

const sent = await client.messages.send({ from, to: to.split(','), body });
console.log(`sent ${sent.id} to conversation ${sent.conversationId}`);

const FINAL = new Set(['delivered', 'failed']);
const deadline = Date.now() + 30_000;
let message = sent;
while (Date.now() < deadline) {
  message = await client.messages.retrieve(sent.id);
  const participants = message.participants ?? [];
  if (participants.length > 0 && participants.every((p) => FINAL.has(p.status))) break;
  await new Promise((resolve) => setTimeout(resolve, 250));
}
for (const p of message.participants ?? []) console.log(`${p.phone}: ${p.status}`);
const allDelivered = (message.participants ?? []).every((p) => p.status === 'delivered');
process.exit(allDelivered ? 0 : 1);
