// `takeBackup` (src/backup/take-backup.ts) against a store that commits without pause:
// the copy is one snapshot, and it ends while the commits go on. SQLite only: PostgreSQL
// backups are pg_dump's (README, "Backup and restore").
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { takeBackup } from '../../src/backup/take-backup.ts';
import { createAccount } from '../../src/commands/create-account.ts';
import { createContact } from '../../src/commands/create-contact.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { openStore } from '../../src/store/store.ts';
import { waitFor } from '../support/messaging.ts';

/** Contacts written before the backup: enough pages that a copy in steps spans many commits. */
const SEEDED = 10_000;
/** The writer stops at this many commits or after WRITE_MS, backup or not. */
const MAX_COMMITS = 20_000;
const WRITE_MS = 60_000;
const COMMITTED_FIRST = 50;

describe('backup of a SQLite store that commits without pause [sqlite]', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-backup-snapshot-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the copy is one snapshot, and it ends while the commits go on', async () => {
    const dataDir = join(dir, 'data');
    const deps = { clock: systemClock };
    const store = await openStore({
      dataDir,
      databaseUrl: null,
      durability: 'normal',
      checkpointThread: true,
    });
    try {
      const account = await store.write((tx) => createAccount(tx, { name: 'Backup' }, deps));
      const actor = { accountId: account.id, mode: 'test' as const };
      const contact = (name: string) => ({ phone: '+14155550100', name });
      await store.write(async (tx) => {
        for (let i = 0; i < SEEDED; i++) await createContact(tx, actor, contact(`Seed ${i}`), deps);
      });
      let commits = 0;
      let stop = false;
      const deadline = performance.now() + WRITE_MS;
      // One commit per turn of the event loop, where the backup's steps are answered too.
      const writer = (async () => {
        while (!stop && commits < MAX_COMMITS && performance.now() < deadline) {
          await store.write((tx) => createContact(tx, actor, contact(`Live ${commits}`), deps));
          commits++;
          await nextTurn();
        }
      })();
      // Some commits in before the backup begins, counted, so "every one before" means something.
      await waitFor(
        async () => (commits >= COMMITTED_FIRST ? true : undefined),
        `${COMMITTED_FIRST} commits`,
        { timeoutMs: WRITE_MS, intervalMs: 10 },
      );
      const committedBefore = commits;
      const file = join(dir, 'backup.db');
      const result = await takeBackup({ dataDir, secretKey: null, to: file });
      const committedAfter = commits;
      const writerStillRunning = !stop && commits < MAX_COMMITS && performance.now() < deadline;
      stop = true;
      await writer;
      // A copy in steps starts over at every other connection's commit between two steps:
      // it would end only once the writer stopped at its bound.
      assert.ok(writerStillRunning, `the backup ended while commits went on (${commits} made)`);

      const copy = new DatabaseSync(result.file, { readOnly: true });
      try {
        const names = copy
          .prepare("SELECT name FROM contacts WHERE name LIKE 'Live %'")
          .all()
          .map((row) => Number(String(row.name).slice('Live '.length)))
          .sort((a, b) => a - b);
        // A snapshot holds a prefix of the commits: every one before the backup began, and
        // none without those before it.
        assert.ok(
          names.length >= committedBefore && names.length <= committedAfter,
          `${names.length} live commits in the copy, ${committedBefore}..${committedAfter} expected`,
        );
        assert.deepEqual(
          names,
          names.map((_, i) => i),
        );
        const seeded = copy
          .prepare("SELECT count(*) AS n FROM contacts WHERE name LIKE 'Seed %'")
          .get() as { n: number };
        assert.equal(seeded.n, SEEDED);
        assert.deepEqual(
          copy
            .prepare('PRAGMA integrity_check')
            .all()
            .map((row) => Object.values(row)[0]),
          ['ok'],
        );
      } finally {
        copy.close();
      }
    } finally {
      await store.close();
    }
  });
});
