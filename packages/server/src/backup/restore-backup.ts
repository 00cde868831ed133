import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import { secretKeyFile } from '../lib/secret-box.ts';
import { sqlitePath } from '../store/store.ts';
import {
  ALL_PAGES,
  BackupRefused,
  flushFile,
  replaceWith,
  privateTempBeside,
  writePrivateTemp,
} from './backup-files.ts';
import { checkBackup } from './check-backup.ts';

/** What `switchboard restore` did. */
export interface RestoreResult {
  dataDir: string;
  database: string;
  bytes: number;
  pages: number;
  /** Whether a key file came with the backup and is now the data directory's. */
  keyRestored: boolean;
  /** Whether a database or key file that was there before was replaced (`--force`). */
  replaced: boolean;
}

const SQLITE_BUSY = 5;

/**
 * Whether another connection has the database at `path` open: every `serve` holds its
 * connections open for its whole life, and an exclusive lock is granted only while no
 * other connection holds the file (checked by a test with a real server). Taking it
 * changes nothing a server would see: when nothing else holds the file, closing this
 * connection copies the log into the database and removes it, as the last connection
 * always does. A file SQLite cannot read at all is not in use.
 */
function inUse(path: string): boolean {
  const db = new DatabaseSync(path);
  try {
    db.exec('PRAGMA busy_timeout = 0');
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return false;
  } catch (error) {
    return (error as { errcode?: number }).errcode === SQLITE_BUSY;
  } finally {
    db.close();
  }
}

/**
 * Puts a backup made by `takeBackup` into `dataDir`, after `checkBackup` passed it.
 * Refused while any process has the directory's database open, and over a database or
 * key file already there unless `force`. The database is copied to a temporary file
 * beside its place (with SQLite's backup, so a backup file in WAL mode comes with its log)
 * and renamed there, after the key file; the old `-wal` and `-shm` go first, because
 * SQLite would replay a stale log onto the new file. Interrupted, it is run again with
 * `force`.
 */
export async function restoreBackup(options: {
  from: string;
  dataDir: string;
  secretKey: string | null;
  force: boolean;
}): Promise<RestoreResult> {
  const from = resolve(options.from);
  const checked = await checkBackup(from, options.secretKey);
  const database = sqlitePath(options.dataDir);
  const keyFile = secretKeyFile(options.dataDir);
  let temp: string | null = null;
  let keyTemp: string | null = null;
  try {
    if (existsSync(database) && inUse(database)) {
      throw new BackupRefused(
        'in_use',
        `${database} is in use by a running Switchboard (serve or another command): stop it, then restore.`,
      );
    }
    const replaced = existsSync(database) || (checked.keyText !== null && existsSync(keyFile));
    if (replaced && !options.force) {
      throw new BackupRefused(
        'not_empty',
        `${options.dataDir} already holds a Switchboard database or key file: restore into an empty directory, or add --force to replace them.`,
      );
    }
    mkdirSync(options.dataDir, { recursive: true });
    temp = privateTempBeside(database);
    const pages = await backup(checked.db, temp, { rate: ALL_PAGES });
    checked.db.close();
    flushFile(temp);
    if (checked.keyText !== null) {
      keyTemp = writePrivateTemp(keyFile, checked.keyText);
      replaceWith(keyTemp, keyFile);
      keyTemp = null;
    }
    for (const stale of [`${database}-wal`, `${database}-shm`, `${database}-journal`]) {
      rmSync(stale, { force: true });
    }
    replaceWith(temp, database);
    temp = null;
    return {
      dataDir: options.dataDir,
      database,
      bytes: statSync(database).size,
      pages,
      keyRestored: checked.keyText !== null,
      replaced,
    };
  } finally {
    if (checked.db.isOpen) checked.db.close();
    if (temp) rmSync(temp, { force: true });
    if (keyTemp) rmSync(keyTemp, { force: true });
  }
}
