import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { createSecretBox, decodeKeyFile, loadSecretKey } from '../lib/secret-box.ts';
import { migrationProvider } from '../store/migrations/index.ts';
import { BackupRefused, keyFileOf } from './backup-files.ts';

/** A backup that passed every check, open read-only. */
export interface CheckedBackup {
  db: DatabaseSync;
  /** The text of the key file beside it, or null if it came without one. */
  keyText: string | null;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

function notABackup(file: string, why: string): BackupRefused {
  return new BackupRefused('invalid_backup', `${file} is not a Switchboard backup: ${why}.`);
}

/** Whether `file` starts as every SQLite database does. */
function looksLikeSqlite(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_MAGIC);
  } finally {
    closeSync(fd);
  }
}

function names(db: DatabaseSync, sql: string): string[] {
  return db
    .prepare(sql)
    .all()
    .map((row) => String((row as { name: unknown }).name));
}

/**
 * Opens `file` read-only and checks that a Switchboard of this version can run on it:
 * an SQLite database, intact (`quick_check`), whose migrations table lists only
 * migrations this version knows (a newer one's would fail at start), and whose webhook
 * secrets the key a restored server would use opens: `SWITCHBOARD_SECRET_KEY` when set,
 * otherwise the key file beside the backup.
 */
export async function checkBackup(file: string, secretKey: string | null): Promise<CheckedBackup> {
  if (!existsSync(file)) throw new BackupRefused('not_found', `${file} does not exist.`);
  if (!looksLikeSqlite(file)) throw notABackup(file, 'it is not an SQLite database');
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const tables = names(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
    if (!tables.includes('kysely_migration')) throw notABackup(file, 'it has no migrations table');
    const applied = names(db, 'SELECT name FROM kysely_migration ORDER BY name');
    if (applied.length === 0) throw notABackup(file, 'no migration was ever applied to it');
    const known = Object.keys(await migrationProvider.getMigrations());
    const unknown = applied.filter((name) => !known.includes(name));
    if (unknown.length > 0) {
      throw new BackupRefused(
        'invalid_backup',
        `${file} was made by a newer Switchboard (migrations ${unknown.join(', ')}); restore it with that version.`,
      );
    }
    const check = db.prepare('PRAGMA quick_check').all();
    const verdict = check.map((row) => String(Object.values(row)[0]));
    if (verdict.join() !== 'ok') throw notABackup(file, `it is damaged (${verdict[0]})`);
    const keyText = readBackupKey(file);
    if (tables.includes('webhook_endpoints')) checkSecretsOpen(db, file, secretKey, keyText);
    return { db, keyText };
  } catch (error) {
    db.close();
    // Anything SQLite itself refuses (a truncated file, say) is just as much not a backup.
    if (error instanceof BackupRefused) throw error;
    throw notABackup(file, error instanceof Error ? error.message : String(error));
  }
}

/** The key file beside a backup, checked, or null if there is none. */
function readBackupKey(file: string): string | null {
  const path = keyFileOf(file);
  if (!existsSync(path)) return null;
  const text = readFileSync(path, 'utf8');
  if (!decodeKeyFile(text)) {
    throw new BackupRefused('invalid_key', `${path} does not hold a 32-byte key (base64).`);
  }
  return text;
}

/** Refuses unless the key a restored server would use opens one of the backup's sealed secrets. */
function checkSecretsOpen(
  db: DatabaseSync,
  file: string,
  secretKey: string | null,
  keyText: string | null,
): void {
  const row = db.prepare('SELECT secret_sealed FROM webhook_endpoints LIMIT 1').get() as
    { secret_sealed: string } | undefined;
  if (!row) return;
  let key: Buffer | null;
  try {
    key = secretKey
      ? loadSecretKey(secretKey, '')
      : keyText === null
        ? null
        : decodeKeyFile(keyText);
  } catch (error) {
    throw new BackupRefused('configuration', (error as Error).message);
  }
  if (!key) {
    throw new BackupRefused(
      'key_missing',
      `${file} holds encrypted webhook secrets, but ${keyFileOf(file)} is missing and SWITCHBOARD_SECRET_KEY is unset: set it to the key the backed-up server used.`,
    );
  }
  try {
    createSecretBox(key).open(row.secret_sealed);
  } catch {
    const which = secretKey ? 'SWITCHBOARD_SECRET_KEY' : keyFileOf(file);
    throw new BackupRefused(
      'key_mismatch',
      `The key in ${which} does not open ${file}'s webhook secrets: it is not the key the backed-up server used.`,
    );
  }
}
