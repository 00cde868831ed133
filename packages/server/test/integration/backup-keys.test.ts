// The secret key of a backup (README, "Backup and restore"): `restoreBackup` puts a backup
// in place only if the key a restored server would use opens its webhook secrets.
// SQLite only: PostgreSQL backups are pg_dump's.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { BackupRefused } from '../../src/backup/backup-files.ts';
import { restoreBackup } from '../../src/backup/restore-backup.ts';
import { takeBackup } from '../../src/backup/take-backup.ts';
import { createAccount } from '../../src/commands/create-account.ts';
import { createWebhookEndpoint } from '../../src/commands/webhooks/create-webhook-endpoint.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createSecretBox, loadSecretKey } from '../../src/lib/secret-box.ts';
import { openStore } from '../../src/store/store.ts';

describe('the secret key of a backup [sqlite]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-backup-keys-'));
  let backupFile: string;
  let key: Buffer;
  let secret: string;
  after(() => rmSync(dir, { recursive: true, force: true }));

  before(async () => {
    const dataDir = join(dir, 'source');
    const store = await openStore({ dataDir, databaseUrl: null });
    key = loadSecretKey(null, dataDir);
    const box = createSecretBox(key);
    try {
      const deps = { clock: systemClock };
      const account = await store.write((tx) => createAccount(tx, { name: 'Keys' }, deps));
      const endpoint = await store.write((tx) =>
        createWebhookEndpoint(
          tx,
          { accountId: account.id, mode: 'test' },
          { url: 'https://example.com/hooks', events: ['contact.created'] },
          {
            ...deps,
            seal: (plain) => box.seal(plain),
            open: (sealed) => box.open(sealed),
            newSecret: () => `whsec_${randomBytes(32).toString('base64')}`,
            checkUrl: async () => ({ ok: true }),
          },
        ),
      );
      secret = endpoint.secret!;
    } finally {
      await store.close();
    }
    backupFile = join(dir, 'backup.db');
    const made = await takeBackup({ dataDir, secretKey: null, to: backupFile });
    assert.equal(made.keyIncluded, true);
  });

  /** A copy of the backup (and its key file, unless `withKey` is false) in a new directory. */
  function copyOfBackup(withKey = true): string {
    const copyDir = mkdtempSync(join(dir, 'copy-'));
    const file = join(copyDir, 'backup.db');
    copyFileSync(backupFile, file);
    if (withKey) copyFileSync(`${backupFile}.key`, `${file}.key`);
    return file;
  }

  async function refusal(promise: Promise<unknown>): Promise<BackupRefused> {
    const error = await promise.then(
      () => assert.fail('the restore went ahead'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof BackupRefused, String(error));
    return error;
  }

  test('restored, the key file beside the backup opens its webhook secrets', async () => {
    const dataDir = join(dir, 'restored');
    const result = await restoreBackup({
      from: copyOfBackup(),
      dataDir,
      secretKey: null,
      force: false,
    });
    assert.equal(result.keyRestored, true);
    const db = new DatabaseSync(join(dataDir, 'switchboard.db'), { readOnly: true });
    try {
      const row = db.prepare('SELECT secret_sealed FROM webhook_endpoints').get() as {
        secret_sealed: string;
      };
      assert.equal(createSecretBox(loadSecretKey(null, dataDir)).open(row.secret_sealed), secret);
    } finally {
      db.close();
    }
  });

  test('a key file that does not open the webhook secrets is refused, and nothing is written', async () => {
    const file = copyOfBackup();
    writeFileSync(`${file}.key`, randomBytes(32).toString('base64'));
    const dataDir = join(dir, 'wrong-key');
    const error = await refusal(
      restoreBackup({ from: file, dataDir, secretKey: null, force: false }),
    );
    assert.equal(error.type, 'key_mismatch');
    assert.ok(!existsSync(dataDir), 'the data directory was not made');
  });

  test('without its key file the backup is refused, unless SWITCHBOARD_SECRET_KEY opens its secrets', async () => {
    const file = copyOfBackup(false);
    const dataDir = join(dir, 'keyless');
    const error = await refusal(
      restoreBackup({ from: file, dataDir, secretKey: null, force: false }),
    );
    assert.equal(error.type, 'key_missing');
    const wrong = await refusal(
      restoreBackup({
        from: file,
        dataDir,
        secretKey: randomBytes(32).toString('base64'),
        force: false,
      }),
    );
    assert.equal(wrong.type, 'key_mismatch');
    assert.ok(!existsSync(dataDir), 'the data directory was not made');

    const result = await restoreBackup({
      from: file,
      dataDir,
      secretKey: key.toString('base64'),
      force: false,
    });
    assert.equal(result.keyRestored, false);
    assert.ok(!existsSync(join(dataDir, 'secret.key')), 'no key file: the variable is the key');
  });
});
