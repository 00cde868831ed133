import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { randomBase62 } from '../../src/lib/ids.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { ENGINES, TEST_PG_URL } from '../support/engines.ts';

// Ids are time-ordered and mix upper and lower case, so "newest" and "oldest
// first" depend on byte order. A PostgreSQL database with a linguistic
// collation (here ICU en-US, which sorts `a` before `B`) must still order them
// by bytes, as SQLite always does.
const NAME = `sb_test_icu_${randomBase62(10).toLowerCase()}`;
let store: Store | null = null;

async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const enabled = ENGINES.includes('postgres');

before(async () => {
  if (!enabled) return;
  await admin(
    `CREATE DATABASE ${NAME} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`,
  );
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${NAME}`;
  store = await openStore({ dataDir: '/nonexistent', databaseUrl: url.toString() });
});

after(async () => {
  await store?.close();
  if (enabled) await admin(`DROP DATABASE IF EXISTS ${NAME} WITH (FORCE)`);
});

test(
  'ids sort byte-wise on PostgreSQL even under a linguistic collation',
  { skip: !enabled },
  async () => {
    const ids = ['ct_0000000Aaaaa', 'ct_0000000Bbbbb', 'ct_0000000aaaaa', 'ct_0000000bbbbb'];
    await store!.write(async (tx) => {
      await tx.db
        .insertInto('accounts')
        .values({ id: 'acct_x', name: 'x', help_reply: null, created_at: 0 })
        .execute();
      for (const id of [...ids].reverse()) {
        await tx.db
          .insertInto('contacts')
          .values({
            id,
            account_id: 'acct_x',
            mode: 'test',
            name: null,
            phone: '+14155550100',
            email: null,
            company: null,
            created_at: 0,
            updated_at: null,
          })
          .execute();
      }
    });
    const rows = await store!.db.selectFrom('contacts').select('id').orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => r.id),
      ids,
    );
  },
);
