import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * `sqlite3_backup_step`'s page count for "every page in one step" (`node:sqlite` takes no
 * -1). One step reads the whole database in one read transaction: a single snapshot that
 * the server's commits (on other connections) cannot restart. In steps of the default
 * 100 pages, every commit between two steps started the copy over: under a steady send
 * load it finished only once the load stopped (1 168 restarts in 7 s, measured).
 */
export const ALL_PAGES = 2_147_483_647;

/** A backup or restore that will not go ahead, and why (the CLI's error type and message). */
export class BackupRefused extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.name = 'BackupRefused';
    this.type = type;
  }
}

/** The key file stored beside a backup `file` (see README, "Backup and restore"). */
export function keyFileOf(file: string): string {
  return `${file}.key`;
}

/** A fresh temporary name in the directory of `path`, so that a rename onto it is atomic. */
export function tempBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${randomBytes(6).toString('hex')}`);
}

/** Flushes a file's contents to disk. */
export function flushFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes a directory, so the renames made in it survive a power failure. */
export function flushDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * A new, empty temporary file beside `path`, readable by its owner only from the start:
 * SQLite writes a copy into it (an empty file is an empty database) and makes its
 * journal with the same mode. It holds password and key hashes and every message.
 */
export function privateTempBeside(path: string): string {
  const temp = tempBeside(path);
  closeSync(openSync(temp, 'wx', 0o600));
  return temp;
}

/** Writes `text` to a new temporary file beside `path` (mode 0600, flushed) and returns its name. */
export function writePrivateTemp(path: string, text: string): string {
  const temp = tempBeside(path);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return temp;
}

/** Renames `temp` onto `path` (atomic within a directory) and flushes the directory. */
export function replaceWith(temp: string, path: string): void {
  renameSync(temp, path);
  flushDirectory(dirname(path));
}

/**
 * What both commands answer with `DATABASE_URL` set: PostgreSQL has its own tools,
 * which take a consistent copy while the service runs.
 */
export function postgresRecipe(command: 'backup' | 'restore'): BackupRefused {
  return new BackupRefused(
    'unsupported_engine',
    [
      `switchboard ${command} works on the embedded SQLite store; DATABASE_URL points at PostgreSQL.`,
      "Use PostgreSQL's own tools (the dump is consistent while the service runs):",
      '  pg_dump --format=custom --file=switchboard.dump "$DATABASE_URL"',
      '  pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" switchboard.dump',
      "Keep SWITCHBOARD_SECRET_KEY (or, where it is unset, the data directory's secret.key) with the dump:",
      'the webhook secrets in it are encrypted with that key and unreadable without it.',
    ].join('\n'),
  );
}
