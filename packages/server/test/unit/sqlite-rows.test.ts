import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { adaptNodeSqlite } from '../../src/store/engine/sqlite.ts';
import { openStore, sqlitePath } from '../../src/store/store.ts';

function database() {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, note TEXT)');
  db.exec(`INSERT INTO t VALUES ('a', 1, 'first'), ('b', 2, NULL)`);
  return adaptNodeSqlite(db);
}

describe('rows read from SQLite', () => {
  test('are plain objects of the statement’s columns, in column order', () => {
    const rows = database().prepare('SELECT id, n, note FROM t ORDER BY id').all([]) as object[];
    assert.deepStrictEqual(rows, [
      { id: 'a', n: 1, note: 'first' },
      { id: 'b', n: 2, note: null },
    ]);
    // node:sqlite's own rows have no prototype: V8 keeps them in dictionary mode, where
    // every read is a hash lookup and a spread costs some thirty times a plain object's.
    for (const row of rows) assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.deepStrictEqual(Object.keys(rows[0]!), ['id', 'n', 'note']);
  });

  test('take a repeated column name from its last occurrence', () => {
    const [row] = database()
      .prepare(`SELECT id, 'x' AS note, note FROM t WHERE id = ?`)
      .all(['a']) as object[];
    assert.deepStrictEqual(row, { id: 'a', note: 'first' });
  });

  test('are the same objects when iterated, and RETURNING gives them too', () => {
    const db = database();
    const iterated = [...db.prepare('SELECT id, n FROM t ORDER BY id').iterate([])];
    assert.deepStrictEqual(iterated, [
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ]);
    const returned = db.prepare('UPDATE t SET n = n + 10 WHERE id = ? RETURNING id, n').all(['b']);
    assert.deepStrictEqual(returned, [{ id: 'b', n: 12 }]);
  });

  test('a statement without result columns reports its changes', () => {
    const db = database();
    const statement = db.prepare('UPDATE t SET n = ? WHERE id = ?');
    assert.equal(statement.reader, false);
    assert.equal(Number(statement.run([5, 'a']).changes), 1);
    assert.deepStrictEqual(db.prepare('SELECT n FROM t WHERE id = ?').all(['a']), [{ n: 5 }]);
  });

  test('column names that are not identifiers are kept exactly', () => {
    const [row] = database()
      .prepare(
        `SELECT n AS "two words", note AS "quote""d", id AS "__proto__" FROM t WHERE id = 'a'`,
      )
      .all([]) as Record<string, unknown>[];
    assert.equal(row!['two words'], 1);
    assert.equal(row!['quote"d'], 'first');
    assert.ok(Object.hasOwn(row!, '__proto__'), 'a column, not the prototype');
    assert.equal(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, 'a');
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
  });
});

describe('rows read from SQLite after another process changed the schema', () => {
  test('a statement whose columns grew builds its rows for the new columns', () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-rows-'));
    try {
      const file = join(dir, 'rows.db');
      const raw = new DatabaseSync(file);
      raw.exec('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER)');
      raw.exec(`INSERT INTO t VALUES ('a', 1)`);
      const db = adaptNodeSqlite(raw);
      const select = db.prepare('SELECT * FROM t');
      assert.deepStrictEqual(select.all([]), [{ id: 'a', n: 1 }]);
      const other = new DatabaseSync(file);
      other.exec(`ALTER TABLE t ADD COLUMN note TEXT DEFAULT 'added'`);
      other.close();
      assert.deepStrictEqual(db.prepare('SELECT * FROM t').all([]), [
        { id: 'a', n: 1, note: 'added' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('columns reordered by another process are read by name, in writes and once its commit is noticed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-rows-'));
    const store = await openStore({ dataDir: dir, databaseUrl: null });
    const db = store.db as unknown as Kysely<any>;
    try {
      await store.write(async (tx) => {
        const w = tx.db as unknown as Kysely<any>;
        await sql`CREATE TABLE scratch (id TEXT PRIMARY KEY, a TEXT, b TEXT)`.execute(w);
        await sql`INSERT INTO scratch VALUES ('r', 'a1', 'b1')`.execute(w);
      });
      store.foreignChanges();
      const read = () => db.selectFrom('scratch').selectAll().execute();
      const readInWrite = () =>
        store.write((tx) =>
          (tx.db as unknown as Kysely<any>).selectFrom('scratch').selectAll().execute(),
        );
      assert.deepStrictEqual(await read(), [{ id: 'r', a: 'a1', b: 'b1' }]);
      assert.deepStrictEqual(await readInWrite(), [{ id: 'r', a: 'a1', b: 'b1' }]);

      // Same number of columns, another order: SQLite prepares the cached statements
      // again by itself, and only their names tell the values apart.
      const other = new DatabaseSync(sqlitePath(dir));
      other.exec('PRAGMA busy_timeout = 5000');
      other.exec(`ALTER TABLE scratch DROP COLUMN a`);
      other.exec(`ALTER TABLE scratch ADD COLUMN a TEXT`);
      other.exec(`UPDATE scratch SET a = 'a2'`);
      other.close();

      assert.deepStrictEqual(await readInWrite(), [{ id: 'r', b: 'b1', a: 'a2' }]);
      // What every authenticated request does first.
      store.foreignChanges();
      assert.deepStrictEqual(await read(), [{ id: 'r', b: 'b1', a: 'a2' }]);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
