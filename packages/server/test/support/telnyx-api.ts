// A stand-in for Telnyx's Messages API (`POST /v2/messages`), answering as Telnyx's published
// OpenAPI description does, and a signer of webhooks as Telnyx signs them (Ed25519 over
// `timestamp|body`), with a key made by node:crypto.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postChecked } from './contract.ts';

export interface TelnyxRequest {
  authorization: string | undefined;
  body: Record<string, any>;
}

export interface TelnyxApi {
  url: string;
  publicKey: string;
  requests: TelnyxRequest[];
  /** The next answers, in order, instead of a created message. */
  refuse(status: number, code: string, title: string): void;
  /** Posts an event to `url`, signed (by `signer`, else the account's key) at `timestamp`. */
  post(
    url: string,
    eventType: string,
    payload: Record<string, unknown>,
    options?: { timestamp?: number; forged?: boolean },
  ): Promise<Response>;
  close(): Promise<void>;
}

export async function startTelnyxApi(): Promise<TelnyxApi> {
  const pair = generateKeyPairSync('ed25519');
  const stranger = generateKeyPairSync('ed25519');
  const publicKey = (pair.publicKey.export({ format: 'der', type: 'spki' }) as Buffer)
    .subarray(12)
    .toString('base64');
  const requests: TelnyxRequest[] = [];
  const refusals: { status: number; code: string; title: string }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method !== 'POST' || req.url !== '/v2/messages') {
        return send(404, { errors: [{ code: '10005', title: 'Resource not found' }] });
      }
      const body = JSON.parse(raw) as Record<string, any>;
      requests.push({ authorization: req.headers.authorization, body });
      const refusal = refusals.shift();
      if (refusal) {
        return send(refusal.status, {
          errors: [{ code: refusal.code, title: refusal.title, detail: refusal.title }],
        });
      }
      const media = (body.media_urls ?? []) as string[];
      send(200, {
        data: {
          record_type: 'message',
          direction: 'outbound',
          id: randomUUID(),
          type: media.length > 0 ? 'MMS' : 'SMS',
          messaging_profile_id: body.messaging_profile_id ?? null,
          from: { phone_number: body.from, carrier: 'Telnyx', line_type: 'Wireless' },
          to: [
            { phone_number: body.to, status: 'queued', carrier: 'T-Mobile', line_type: 'Wireless' },
          ],
          text: body.text ?? '',
          media: media.map((url) => ({ url, content_type: null, sha256: null, size: null })),
          webhook_url: body.webhook_url ?? null,
          encoding: 'GSM-7',
          parts: 1,
          errors: [],
        },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    publicKey,
    requests,
    refuse(status, code, title) {
      refusals.push({ status, code, title });
    },
    post(url, eventType, payload, options = {}) {
      const body = JSON.stringify({
        data: {
          event_type: eventType,
          id: randomUUID(),
          occurred_at: new Date().toISOString(),
          payload: { record_type: 'message', ...payload },
          record_type: 'event',
        },
        meta: { attempt: 1, delivered_to: url },
      });
      const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
      const key = options.forged ? stranger.privateKey : pair.privateKey;
      return postChecked(url, {
        headers: {
          'content-type': 'application/json',
          'telnyx-timestamp': timestamp,
          'telnyx-signature-ed25519': sign(null, Buffer.from(`${timestamp}|${body}`), key).toString(
            'base64',
          ),
        },
        body,
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
