import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { confirmApiKey } from '../../src/commands/authenticate-api-key.ts';
import { createApiKey } from '../../src/commands/create-api-key.ts';
import { ApiError } from '../../src/domain/errors.ts';
import { sha256Hex } from '../../src/lib/secrets.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';

for (const engine of ENGINES) {
  describe(`changes run with the API key they were asked with [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    before(async () => {
      t = await startTestApp(engine, { background: false });
      acct = await t.newAccount();
    });
    after(() => t.close());

    const clock = { now: () => Date.now() };

    test('a key revoked by an earlier unit of the same batch refuses the changes after it', async () => {
      const key = await t.store.write((tx) =>
        createApiKey(tx, { accountId: acct.accountId, mode: 'test' }, { clock }),
      );
      const apiKey = sha256Hex(key.secret);
      const actor = { accountId: acct.accountId, mode: 'test' as const };
      const contact = (phone: string) =>
        t.app.deps.changes.run('createContact', { actor, input: { phone } }, { apiKey });
      // Submitted in one turn: one transaction, in this order.
      const [before, revoked, afterward] = await Promise.allSettled([
        contact('+14155550171'),
        t.app.deps.changes.run('revokeApiKey', { keyId: key.id }),
        contact('+14155550172'),
      ]);
      assert.equal(before.status, 'fulfilled', 'the key was valid for the first');
      assert.equal(revoked.status, 'fulfilled');
      assert.equal(afterward.status, 'rejected');
      assert.ok(
        afterward.reason instanceof ApiError && afterward.reason.type === 'unauthorized',
        String(afterward.reason),
      );
      const phones = (
        await t.store.db
          .selectFrom('contacts')
          .select('phone')
          .where('account_id', '=', acct.accountId)
          .execute()
      ).map((c) => c.phone);
      assert.ok(phones.includes('+14155550171'));
      assert.ok(!phones.includes('+14155550172'), 'nothing was changed with the revoked key');
    });

    test('a change that would fail on its own, asked with a revoked key, is refused as unauthorized: the key is judged first', async () => {
      const key = await t.store.write((tx) =>
        createApiKey(tx, { accountId: acct.accountId, mode: 'test' }, { clock }),
      );
      await t.app.deps.changes.run('revokeApiKey', { keyId: key.id });
      const actor = { accountId: acct.accountId, mode: 'test' as const };
      await assert.rejects(
        t.app.deps.changes.run(
          'sendMessage',
          { actor, input: { from: '+15005550999', to: '+14155550173', body: 'hi' } },
          { apiKey: sha256Hex(key.secret) },
        ),
        (error) => error instanceof ApiError && error.type === 'unauthorized',
      );
    });

    test('a change asked with a revoked key leaves nothing, not even what its command wrote after the key was found revoked', async () => {
      const key = await t.store.write((tx) =>
        createApiKey(tx, { accountId: acct.accountId, mode: 'test' }, { clock }),
      );
      // Revoked in the database alone: the check in the write transaction is what refuses it.
      await t.store.write((tx) =>
        tx.db
          .updateTable('api_keys')
          .set({ revoked_at: Date.now() })
          .where('id', '=', key.id)
          .execute(),
      );
      const actor = { accountId: acct.accountId, mode: 'test' as const };
      const peer = '+14155550174';
      // A send to a new number looks for its thread, opens it, then stores the message: its
      // statements go on after the key's lookup has answered.
      await assert.rejects(
        t.app.deps.changes.run(
          'sendMessage',
          { actor, input: { from: acct.testNumbers[0]!, to: peer, body: 'hi' } },
          { apiKey: sha256Hex(key.secret) },
        ),
        (error) => error instanceof ApiError && error.type === 'unauthorized',
      );
      await sleep(50);
      const threads = await t.store.db
        .selectFrom('conversations')
        .select('id')
        .where('account_id', '=', acct.accountId)
        .where('peer_phone', '=', peer)
        .execute();
      assert.deepEqual(threads, []);
    });

    // On SQLite a failed statement leaves the transaction usable (on PostgreSQL it aborts it
    // whole): the next lookup must run, not be answered by the failure shared in tx.shared.
    if (engine === 'sqlite') {
      test('a key lookup that failed with a database error is looked up again by the next unit of the batch, not taken as its answer', async () => {
        const key = await t.store.write((tx) =>
          createApiKey(tx, { accountId: acct.accountId, mode: 'test' }, { clock }),
        );
        const apiKey = sha256Hex(key.secret);
        const outcomes = await t.store.write(async (tx) => {
          await sql`alter table api_keys rename to api_keys_away`.execute(tx.db);
          const first = await confirmApiKey(tx, apiKey).then(
            () => 'confirmed',
            (error: Error) => (error instanceof ApiError ? error.type : 'database error'),
          );
          await sql`alter table api_keys_away rename to api_keys`.execute(tx.db);
          const second = await confirmApiKey(tx, apiKey).then(() => 'confirmed');
          return [first, second];
        });
        assert.deepEqual(outcomes, ['database error', 'confirmed']);
      });
    }
  });
}
