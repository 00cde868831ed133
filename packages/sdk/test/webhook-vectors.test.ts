import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, mock, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  signWebhookPayload,
  standardWebhooksSignature,
  verifyWebhook,
} from '../src/webhooks/verify.ts';

interface Vector {
  name: string;
  secret: string;
  timestamp: number;
  webhookId: string;
  body: string;
  xServiceSignature: string;
  webhookSignature: string;
}

// The published document is the source of truth: the suite reads its JSON block, so the docs
// cannot drift from what the code signs.
const markdown = readFileSync(
  new URL('../../../docs/webhook-test-vectors.md', import.meta.url),
  'utf8',
);
const block = /## Machine-readable vectors[\s\S]*?```json\n([\s\S]*?)\n```/.exec(markdown);
assert.ok(block, 'docs/webhook-test-vectors.md has a JSON block under "Machine-readable vectors"');
const vectors = JSON.parse(block[1]!) as Vector[];

describe('docs/webhook-test-vectors.md', () => {
  test('publishes at least two vectors, all with distinct secrets', () => {
    assert.ok(vectors.length >= 2);
    assert.equal(new Set(vectors.map((v) => v.secret)).size, vectors.length);
  });

  test('covers a non-ASCII body and one whose re-serialized JSON differs from its bytes', () => {
    assert.ok(vectors.some((v) => Buffer.byteLength(v.body, 'utf8') > v.body.length));
    assert.ok(vectors.some((v) => JSON.stringify(JSON.parse(v.body)) !== v.body));
  });

  for (const v of vectors) {
    describe(v.name, () => {
      const id = v.webhookId;

      test('the human-readable headers repeat the JSON values exactly', () => {
        assert.ok(markdown.includes(`X-Service-Signature: ${v.xServiceSignature}\n`));
        assert.ok(markdown.includes(`webhook-signature: ${v.webhookSignature}\n`));
        assert.ok(markdown.includes(`webhook-timestamp: ${v.timestamp}\n`));
      });

      test('X-Service-Signature is what node:crypto computes over <t>.<raw body>', () => {
        const hex = createHmac('sha256', Buffer.from(v.secret, 'utf8'))
          .update(Buffer.from(`${v.timestamp}.${v.body}`, 'utf8'))
          .digest('hex');
        assert.equal(v.xServiceSignature, `t=${v.timestamp},v1=${hex}`);
      });

      test('webhook-signature is what node:crypto computes with the decoded secret', () => {
        const key = Buffer.from(v.secret.replace(/^whsec_/, ''), 'base64');
        assert.equal(key.length, 32);
        const b64 = createHmac('sha256', key)
          .update(Buffer.from(`${id}.${v.timestamp}.${v.body}`, 'utf8'))
          .digest('base64');
        assert.equal(v.webhookSignature, `v1,${b64}`);
      });

      test('the SDK signs both headers identically', async () => {
        const options = { timestamp: v.timestamp };
        assert.equal(await signWebhookPayload(v.body, v.secret, options), v.xServiceSignature);
        assert.equal(
          await standardWebhooksSignature(v.body, v.secret, { id, timestamp: v.timestamp }),
          v.webhookSignature,
        );
      });

      test('verifyWebhook accepts the vector at its timestamp, as text and as bytes', async () => {
        const now = new Date(v.timestamp * 1000);
        const event = await verifyWebhook(v.body, v.xServiceSignature, v.secret, { now });
        assert.equal(event.id, id);
        const bytes = new TextEncoder().encode(v.body);
        assert.equal((await verifyWebhook(bytes, v.xServiceSignature, v.secret, { now })).id, id);
      });

      test('the standardwebhooks package accepts the vector at its timestamp', () => {
        mock.timers.enable({ apis: ['Date'], now: v.timestamp * 1000 });
        try {
          const headers = {
            'webhook-id': id,
            'webhook-timestamp': String(v.timestamp),
            'webhook-signature': v.webhookSignature,
          };
          assert.deepEqual(new Webhook(v.secret).verify(v.body, headers), JSON.parse(v.body));
        } finally {
          mock.timers.reset();
        }
      });
    });
  }
});
