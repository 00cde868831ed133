import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EndpointRows, FOREIGN_CHECK_MS } from '../../src/delivery/endpoint-rows.ts';
import {
  insertWebhookEndpoint,
  updateWebhookEndpoint,
  type WebhookEndpointRow,
} from '../../src/store/repos/webhook-endpoints.ts';
import { insertAccount } from '../../src/store/repos/accounts.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

const NOW = Date.UTC(2026, 0, 1);
const ACCOUNT = 'acct_endpoint_rows';

function endpointRow(id: string): WebhookEndpointRow {
  return {
    id,
    account_id: ACCOUNT,
    mode: 'test',
    url: 'https://example.com/first',
    description: null,
    events_json: '["message.received"]',
    secret_sealed: 'sealed',
    previous_secret_sealed: null,
    previous_secret_expires_at: null,
    enabled: 1,
    disabled_reason: null,
    failing_since: null,
    deleted_at: null,
    created_at: NOW,
    updated_at: NOW,
  };
}

for (const engine of ENGINES) {
  describe(`the delivery worker's endpoint rows (${engine})`, () => {
    let database: TestDatabase;
    let store: Store;
    let rows: EndpointRows;

    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
      await store.write((tx) =>
        insertAccount(tx.db, {
          id: ACCOUNT,
          name: 'Endpoint rows',
          help_reply: null,
          created_at: NOW,
        }),
      );
      rows = new EndpointRows(store);
    });
    after(async () => {
      rows.close();
      await store.close();
      await database.drop();
    });

    async function created(id: string): Promise<void> {
      await store.write((tx) => insertWebhookEndpoint(tx.db, endpointRow(id)));
    }

    test('a change through updateWebhookEndpoint is seen by the next read', async () => {
      await created('we_local');
      assert.equal((await rows.get('we_local'))?.url, 'https://example.com/first');
      await store.write((tx) => updateWebhookEndpoint(tx, 'we_local', { enabled: 0 }));
      assert.equal((await rows.get('we_local'))?.enabled, 0);
    });

    test('a change by another process is seen by reads that start FOREIGN_CHECK_MS after it', async () => {
      await created('we_foreign');
      assert.equal((await rows.get('we_foreign'))?.enabled, 1);
      // Another connection, as the CLI or another instance would have.
      const other = await openStore(database.options);
      try {
        await other.write((tx) =>
          tx.db
            .updateTable('webhook_endpoints')
            .set({ deleted_at: NOW + 1 })
            .where('id', '=', 'we_foreign')
            .execute(),
        );
      } finally {
        await other.close();
      }
      await sleep(FOREIGN_CHECK_MS + 5);
      assert.equal((await rows.get('we_foreign'))?.deleted_at, NOW + 1);
    });

    // On SQLite this process's own commits never move `foreignChanges()`, so a kept copy
    // shows; on PostgreSQL a check every FOREIGN_CHECK_MS drops them, at a time the test
    // cannot pin down.
    test(
      'a row is read once and kept while nothing says it changed',
      { skip: engine !== 'sqlite' },
      async () => {
        await created('we_kept');
        assert.equal((await rows.get('we_kept'))?.url, 'https://example.com/first');
        // Written by this process without the signal: only a kept copy hides it.
        await store.write((tx) =>
          tx.db
            .updateTable('webhook_endpoints')
            .set({ url: 'https://example.com/second' })
            .where('id', '=', 'we_kept')
            .execute(),
        );
        await sleep(FOREIGN_CHECK_MS + 5);
        assert.equal((await rows.get('we_kept'))?.url, 'https://example.com/first');
      },
    );

    test('an endpoint that does not exist is not remembered as missing', async () => {
      assert.equal(await rows.get('we_later'), undefined);
      await created('we_later');
      assert.equal((await rows.get('we_later'))?.id, 'we_later');
    });
  });
}
