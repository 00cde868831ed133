import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import { decodeKeyFile, secretKeyFile } from '../lib/secret-box.ts';
import { sqlitePath } from '../store/store.ts';
import {
  ALL_PAGES,
  BackupRefused,
  flushFile,
  keyFileOf,
  replaceWith,
  privateTempBeside,
  writePrivateTemp,
} from './backup-files.ts';

/** What `switchboard backup` made. */
export interface BackupResult {
  /** The backup: a self-contained SQLite file (no `-wal` beside it). */
  file: string;
  bytes: number;
  pages: number;
  /** Whether the secret key is in `keyFile`; false with `SWITCHBOARD_SECRET_KEY` (keep it). */
  keyIncluded: boolean;
  keyFile: string | null;
}

/**
 * Copies the SQLite store of `dataDir` to `to`, while a server may be writing to it, and
 * the key file that opens its webhook secrets to `to.key` (mode 0600).
 *
 * The copy is SQLite's online backup in one step (ALL_PAGES), from a read-only connection
 * of this process: one read transaction, so one snapshot, holding every commit made
 * before it began, whether checkpointed or still in the `-wal`. In WAL mode a reader
 * blocks no writer: measured beside a writer committing in a loop, copying a 450 MB
 * database took 8 s and the writer committed as often as alone. Meanwhile the log cannot
 * start over, so it grows by what is written during the copy; past the checkpoint
 * thread's RESTART bound (docs/architecture.md, 64 k frames) its RESTART would hold the
 * writer up to its busy timeout while the copy runs.
 *
 * Two files rather than one archive: the key can then be kept apart from the data it
 * protects (the point of encrypting secrets at rest), and the backup stays a plain
 * SQLite file any tool can open. Each is written to a temporary name and renamed, the key
 * first, so `to` only ever names a complete backup.
 */
export async function takeBackup(options: {
  dataDir: string;
  secretKey: string | null;
  to: string;
}): Promise<BackupResult> {
  const source = sqlitePath(options.dataDir);
  if (!existsSync(source)) {
    throw new BackupRefused(
      'not_found',
      `There is no Switchboard database in ${options.dataDir} (no ${source}).`,
    );
  }
  const file = resolve(options.to);
  const keyFile = keyFileOf(file);
  const liveFiles = [source, `${source}-wal`, `${source}-shm`, secretKeyFile(options.dataDir)];
  if (liveFiles.includes(file) || liveFiles.includes(keyFile)) {
    throw new BackupRefused('invalid_destination', `--to must not name the live store's files.`);
  }
  if (!existsSync(dirname(file))) {
    throw new BackupRefused('not_found', `The directory ${dirname(file)} does not exist.`);
  }

  let temp: string | null = null;
  let keyTemp: string | null = null;
  try {
    temp = privateTempBeside(file);
    const db = new DatabaseSync(source, { readOnly: true });
    let pages: number;
    try {
      // A reader waits only while a crashed writer's log is recovered.
      db.exec('PRAGMA busy_timeout = 10000');
      pages = await backup(db, temp, { rate: ALL_PAGES });
    } finally {
      db.close();
    }
    // The copy carries the store's WAL mark; in rollback mode it is one file, complete
    // in itself, that opens read-only without making a `-wal` and `-shm` beside it.
    const copy = new DatabaseSync(temp);
    try {
      copy.exec('PRAGMA journal_mode = DELETE');
    } finally {
      copy.close();
    }
    flushFile(temp);

    const keyText = options.secretKey ? null : readKeyFile(options.dataDir);
    if (keyText === null) {
      // A key file left by an earlier backup to the same name would not match this one.
      rmSync(keyFile, { force: true });
    } else {
      keyTemp = writePrivateTemp(keyFile, keyText);
      replaceWith(keyTemp, keyFile);
      keyTemp = null;
    }
    replaceWith(temp, file);
    temp = null;
    return {
      file,
      bytes: statSync(file).size,
      pages,
      keyIncluded: keyText !== null,
      keyFile: keyText === null ? null : keyFile,
    };
  } finally {
    if (temp) rmSync(temp, { force: true });
    if (keyTemp) rmSync(keyTemp, { force: true });
  }
}

/** The data directory's key file as it is, or null if it has none yet (nothing sealed with one). */
function readKeyFile(dataDir: string): string | null {
  const path = secretKeyFile(dataDir);
  if (!existsSync(path)) return null;
  const text = readFileSync(path, 'utf8');
  if (!decodeKeyFile(text)) {
    throw new BackupRefused('invalid_key', `${path} does not hold a 32-byte key (base64).`);
  }
  return text;
}
