import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { idempotentRequest } from '../../src/commands/idempotency.ts';
import { randomBase62 } from '../../src/lib/ids.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { WEBHOOK_SECRET } from '../support/webhooks.ts';

for (const engine of ENGINES) {
  describe(`idempotency records of answers with secrets [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;

    before(async () => {
      t = await startTestApp(engine, {
        background: false,
        env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
      });
      acct = await t.newAccount();
    });
    after(() => t.close());

    /** The account's idempotency records, every column, as the database holds them. */
    async function rawRecords(): Promise<string> {
      const rows = await t.store.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('account_id', '=', acct.accountId)
        .execute();
      assert.ok(rows.length > 0, 'there are records to look at');
      return JSON.stringify(rows);
    }

    /** Posts twice under one new key: the answer, and its replay, which must be the same. */
    async function postAndReplay(path: string, body?: object) {
      const headers = { 'idempotency-key': `secret-${randomBase62(8)}` };
      const first = await acct.test.post(path, body, headers);
      assert.ok(first.status < 300, first.text);
      const replay = await acct.test.post(path, body, headers);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.status, first.status);
      assert.equal(replay.text, first.text, 'the replay is byte for byte the first answer');
      return first.body as { id: string; secret: string };
    }

    test('an endpoint created and rotated under an Idempotency-Key leaves no secret in clear in its records, and replays return it', async () => {
      const created = await postAndReplay('/v1/webhook_endpoints', {
        url: 'http://127.0.0.1:9/hooks',
        events: ['contact.created'],
      });
      const rotated = await postAndReplay(`/v1/webhook_endpoints/${created.id}/rotate_secret`);
      assert.match(created.secret, WEBHOOK_SECRET);
      assert.match(rotated.secret, WEBHOOK_SECRET);
      assert.notEqual(rotated.secret, created.secret);

      const stored = await rawRecords();
      assert.ok(!stored.includes('whsec_'), 'no whsec_ in the idempotency table');
      for (const secret of [created.secret, rotated.secret]) {
        const base64 = secret.slice('whsec_'.length);
        assert.ok(!stored.includes(base64), "nor a secret's base64 part");
      }
    });

    test('an answer recorded in clear before answers were sealed still replays as it was', async () => {
      const key = `clear-${randomBase62(8)}`;
      const body = { phone: '+14155550199' };
      const recorded = JSON.stringify({
        id: 'ct_recorded_in_clear',
        object: 'contact',
        name: null,
        phone: '+14155550199',
        email: null,
        company: null,
        createdAt: '2026-01-05T09:00:00.000Z',
      });
      const { requestHash } = idempotentRequest(
        key,
        'Idempotency-Key',
        'POST',
        '/v1/contacts',
        body,
      );
      await t.store.write(async (tx) => {
        await tx.db
          .insertInto('idempotency_keys')
          .values({
            account_id: acct.accountId,
            mode: 'test',
            key,
            request_hash: requestHash,
            status_code: 201,
            response_body: recorded,
            created_at: Date.now(),
          })
          .execute();
      });
      const replay = await acct.test.post('/v1/contacts', body, { 'idempotency-key': key });
      assert.equal(replay.status, 201, replay.text);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.text, recorded);
    });
  });
}
