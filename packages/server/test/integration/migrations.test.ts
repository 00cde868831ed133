import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { openSqlite, sqliteKysely } from '../../src/store/engine/sqlite.ts';
import { openPostgresPool, postgresDialect } from '../../src/store/engine/postgres.ts';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import type { DB } from '../../src/store/schema.ts';
import { listRecipients } from '../../src/store/repos/messages.ts';
import { claimSubmissions, nextSubmissionDue } from '../../src/store/repos/submissions.ts';
import { sqlitePath } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

for (const engine of ENGINES) {
  describe(`upgrades keep work in flight (${engine})`, () => {
    let database: TestDatabase;
    let db: Kysely<DB>;

    before(async () => {
      database = await createTestDatabase(engine);
      const { dataDir, databaseUrl } = database.options;
      db = databaseUrl
        ? new Kysely<DB>({ dialect: postgresDialect(openPostgresPool(databaseUrl)) })
        : sqliteKysely<DB>(openSqlite(sqlitePath(dataDir), { durability: 'normal' }));
    });
    after(async () => {
      await db.destroy();
      await database.drop();
    });

    const migrator = () => new Migrator({ db, provider: migrationProvider });

    test('a submission waiting in the old outbound queue is still made after 009 moves it onto its recipient', async () => {
      const to = await migrator().migrateTo('008-sandbox-network-from-recipients');
      assert.equal(to.error, undefined);
      await sql`insert into messages (id, account_id, mode, conversation_id, direction, from_phone, to_json,
          is_group, body, media_json, segments, status, failure_reason, sender_name, contact_id, created_at, updated_at)
        values ('msg_upgrade', 'acct_upgrade', 'test', 'cv_upgrade', 'outbound', '+15550000000',
          '["+15550000001","+15550000002"]', 1, 'hello', '[]', 1, 'queued', null, null, null, 100, 100)`.execute(
        db,
      );
      // One participant still waits (claimed once, its lease running to 500); the other was taken.
      await sql`insert into message_recipients (message_id, phone, status, failure_reason, carrier_ref, updated_at)
        values ('msg_upgrade', '+15550000001', 'queued', null, null, 100),
               ('msg_upgrade', '+15550000002', 'queued', null, 'sbx_taken', 120)`.execute(db);
      await sql`insert into outbound_queue (message_id, phone, mode, run_at, attempts, locked_until, last_error)
        values ('msg_upgrade', '+15550000001', 'test', 100, 2, 500, 'carrier busy')`.execute(db);

      const latest = await migrator().migrateToLatest();
      assert.equal(latest.error, undefined);

      const [waiting, taken] = await listRecipients(db, 'msg_upgrade');
      assert.deepEqual(
        [waiting!.run_at, waiting!.attempts, waiting!.last_error],
        [500, 2, 'carrier busy'],
      );
      assert.deepEqual([taken!.run_at, taken!.attempts, taken!.last_error], [null, 0, null]);
      // Due when its lease ends, and then claimed; the one the carrier took never is.
      assert.equal(await nextSubmissionDue(db), 500);
      assert.deepEqual(await claimSubmissions(db, 499, 10, 60_000), []);
      assert.deepEqual(await claimSubmissions(db, 500, 10, 60_000), [
        { message_id: 'msg_upgrade', phone: '+15550000001', attempts: 3 },
      ]);
      assert.equal(await nextSubmissionDue(db), 60_500);
    });
  });

  describe(`upgrades forget what was kept in clear (${engine})`, () => {
    let database: TestDatabase;
    let db: Kysely<DB>;

    before(async () => {
      database = await createTestDatabase(engine);
      const { dataDir, databaseUrl } = database.options;
      db = databaseUrl
        ? new Kysely<DB>({ dialect: postgresDialect(openPostgresPool(databaseUrl)) })
        : sqliteKysely<DB>(openSqlite(sqlitePath(dataDir), { durability: 'normal' }));
    });
    after(async () => {
      await db.destroy();
      await database.drop();
    });

    test('an idempotency record holding a secret in clear is forgotten by 014; one without is kept', async () => {
      const migrator = new Migrator({ db, provider: migrationProvider });
      assert.equal((await migrator.migrateTo('014-events-in-recovery-order')).error, undefined);
      const record = (key: string, body: object) => ({
        account_id: 'acct_upgrade',
        mode: 'test' as const,
        key,
        request_hash: 'h',
        status_code: 201,
        response_body: JSON.stringify(body),
        created_at: 100,
      });
      await db
        .insertInto('idempotency_keys')
        .values([
          record('endpoint', { id: 'we_1', secret: `whsec_${'A'.repeat(43)}=` }),
          record('contact', { id: 'ct_1', name: 'said "secret":"x"' }),
        ])
        .execute();
      assert.equal((await migrator.migrateToLatest()).error, undefined);
      const kept = await db.selectFrom('idempotency_keys').select('key').execute();
      assert.deepEqual(
        kept.map((r) => r.key),
        ['contact'],
      );
    });
  });
}
