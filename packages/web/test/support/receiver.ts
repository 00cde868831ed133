// A webhook receiver on 127.0.0.1 for the browser suites: records every delivery's JSON body.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One delivery as received: its headers and parsed envelope. */
export interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  body: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
}

/** A running receiver; `status` decides what it answers (200 unless changed). */
export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  status: number;
  close(): Promise<void>;
}

/** Starts a receiver on a random port. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: '',
    deliveries: [],
    status: 200,
    close: async () => undefined,
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        receiver.deliveries.push({
          headers: request.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivery['body'],
        });
      } catch {
        // Not JSON: not a delivery this receiver cares about.
      }
      response.writeHead(receiver.status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
