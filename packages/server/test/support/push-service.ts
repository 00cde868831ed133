// A Web Push service for tests: an HTTPS receiver on 127.0.0.1 that takes the pushes
// web-push sends (RFC 8030, payloads encrypted per RFC 8291), and subscribers holding the
// keys a browser would, so a test reads each push as the browser would receive it.
import assert from 'node:assert/strict';
import { createECDH, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { decrypt } from 'http_ece';
import { startHttpsReceiver, type ReceivedRequest, type Receiver } from './receiver.ts';

/** A browser's side of a subscription: what it registers, and how it reads a push. */
export interface PushSubscriber {
  path: string;
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  /** The JSON a push carried, decrypted with this subscriber's keys. */
  read(request: ReceivedRequest): any;
}

/** A running push service; pass `ca` as the app's `pushCa`. */
export type PushService = Receiver & { ca: string; subscriber(): PushSubscriber };

let counter = 0;

/** Starts a push service with a fresh self-signed certificate. */
export async function startPushService(): Promise<PushService> {
  const receiver = await startHttpsReceiver();
  // Push services answer 201 Created for a push they accepted.
  const subscriber = (): PushSubscriber => {
    const path = `/push/${++counter}`;
    receiver.on(path, { status: 201 });
    const ecdh: ECDH = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    return {
      path,
      subscription: {
        endpoint: `${receiver.url}${path}`,
        keys: {
          p256dh: ecdh.getPublicKey().toString('base64url'),
          auth: auth.toString('base64url'),
        },
      },
      read(request) {
        assert.equal(request.headers['content-encoding'], 'aes128gcm');
        const plain = decrypt(request.raw, {
          version: 'aes128gcm',
          privateKey: ecdh,
          authSecret: auth,
        });
        return JSON.parse(plain.toString('utf8'));
      },
    };
  };
  return Object.assign(receiver, { subscriber });
}

/**
 * Checks a push's VAPID authorisation (RFC 8292): a JWT for the push service's origin,
 * signed ES256 by the private half of `publicKey` (base64url, uncompressed P-256).
 */
export function assertVapid(request: ReceivedRequest, origin: string, publicKey: string): void {
  const header = String(request.headers.authorization ?? '');
  const match = /^vapid t=([^,]+), k=(.+)$/.exec(header);
  assert.ok(match, `a vapid Authorization header, not '${header}'`);
  const [, token, key] = match;
  assert.equal(key, publicKey, 'signed with the key browsers subscribed with');
  const [head, claims, signature] = token!.split('.');
  const raw = Buffer.from(publicKey, 'base64url');
  const jwk = {
    kty: 'EC',
    crv: 'P-256',
    x: raw.subarray(1, 33).toString('base64url'),
    y: raw.subarray(33, 65).toString('base64url'),
  };
  const ok = verify(
    'sha256',
    Buffer.from(`${head}.${claims}`),
    { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature!, 'base64url'),
  );
  assert.ok(ok, 'the JWT signature verifies');
  const body = JSON.parse(Buffer.from(claims!, 'base64url').toString('utf8'));
  assert.equal(body.aud, origin);
}
