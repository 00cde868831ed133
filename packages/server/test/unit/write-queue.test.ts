// The write queue's group commit: one transaction for what comes together, answers only once
// on disk, savepoints only when a unit fails (lanes and pipelining: write-queue-lanes.test.ts).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/store/schema.ts';
import {
  TransactionAborted,
  WriteQueue,
  type Signal,
  type TransactionRunner,
} from '../../src/store/engine/write-queue.ts';
import { deferred, fakeDb, recordingRunner, settle } from '../support/write-queue-rig.ts';

describe('write queue (group commit)', () => {
  test('a write is answered only once its commit is on disk, not when the commit returns', async () => {
    const { runner, flushes } = recordingRunner();
    const queue = new WriteQueue(runner, new EventEmitter());
    let answered = false;
    const write = queue
      .submit(async () => 'done')
      .then((v) => {
        answered = true;
        return v;
      });
    await settle();
    assert.equal(flushes.length, 1, 'the batch has committed');
    assert.equal(answered, false, 'but is not answered before its flush');
    flushes[0]!.resolve();
    assert.equal(await write, 'done');
  });

  test('signals published by a unit are emitted only once its commit is on disk', async () => {
    const { runner, flushes } = recordingRunner();
    const signals = new EventEmitter();
    const heard: unknown[] = [];
    signals.on('message.updated', (payload) => heard.push(payload));
    const queue = new WriteQueue(runner, signals);
    const write = queue.submit(async (tx) => tx.publish('message.updated', { id: 'msg_1' }));
    await settle();
    assert.deepEqual(heard, []);
    flushes[0]!.resolve();
    await write;
    assert.deepEqual(heard, [{ id: 'msg_1' }]);
  });

  test('the next batch runs while the previous one waits for the disk, and answers keep commit order', async () => {
    const { runner, flushes } = recordingRunner();
    const queue = new WriteQueue(runner, new EventEmitter());
    const order: string[] = [];
    const first = queue.submit(async () => order.push('first'));
    await settle();
    const second = queue.submit(async () => order.push('second'));
    await settle();
    assert.equal(flushes.length, 2, 'the second batch committed before the first flush ended');
    const answered: string[] = [];
    void first.then(() => answered.push('first'));
    void second.then(() => answered.push('second'));
    flushes[1]!.resolve();
    await settle();
    assert.deepEqual(answered, [], 'the later batch waits for the earlier one');
    flushes[0]!.resolve();
    await Promise.all([first, second]);
    assert.deepEqual(answered, ['first', 'second']);
  });

  test('units submitted in the same turn share one transaction', async () => {
    const { runner, flushes, batches } = recordingRunner();
    const queue = new WriteQueue(runner, new EventEmitter());
    const writes = [1, 2, 3].map((n) => queue.submit(async () => n));
    await settle();
    assert.equal(batches.length, 1);
    flushes[0]!.resolve();
    assert.deepEqual(await Promise.all(writes), [1, 2, 3]);
  });

  test('a batch in which no unit fails runs without savepoints; one with a failing unit runs again with a savepoint per unit, and so does the next', async () => {
    const statements: string[] = [];
    const db = {
      executeQuery: async (query: { sql: string }) => {
        statements.push(query.sql);
        return { rows: [] };
      },
    } as unknown as Kysely<DB>;
    const runs: string[] = [];
    const runner: TransactionRunner = async (body) => {
      statements.push('begin');
      try {
        await body(db);
      } catch (error) {
        statements.push('rollback');
        throw error;
      }
      statements.push('commit');
      return { onDisk: Promise.resolve() };
    };
    const queue = new WriteQueue(runner, new EventEmitter());
    const unit =
      (name: string, fails = false) =>
      async () => {
        runs.push(name);
        if (fails) throw new Error(`${name} failed`);
        return name;
      };

    assert.deepEqual(await Promise.all([queue.submit(unit('a')), queue.submit(unit('b'))]), [
      'a',
      'b',
    ]);
    assert.deepEqual(statements, ['begin', 'commit']);
    assert.deepEqual(runs, ['a', 'b']);

    statements.length = 0;
    runs.length = 0;
    const settled = await Promise.allSettled([
      queue.submit(unit('c')),
      queue.submit(unit('d', true)),
      queue.submit(unit('e')),
    ]);
    assert.deepEqual(
      settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message)),
      ['c', 'd failed', 'e'],
    );
    assert.deepEqual(runs, ['c', 'd', 'c', 'd', 'e'], 'the batch stopped at d and ran again');
    assert.deepEqual(statements, [
      'begin',
      'rollback',
      'begin',
      'savepoint unit',
      'release savepoint unit',
      'savepoint unit',
      'rollback to savepoint unit',
      'release savepoint unit',
      'savepoint unit',
      'release savepoint unit',
      'commit',
    ]);

    // Failures come in runs: the next batch starts with savepoints, and once one
    // has no failing unit, batches run without them again.
    statements.length = 0;
    await Promise.all([queue.submit(unit('f')), queue.submit(unit('g'))]);
    await queue.submit(unit('h'));
    assert.deepEqual(statements, [
      'begin',
      'savepoint unit',
      'release savepoint unit',
      'savepoint unit',
      'release savepoint unit',
      'commit',
      'begin',
      'commit',
    ]);
  });

  test("the runner is handed the signals of the batch's committed units, in order, and none of a unit that failed", async () => {
    const handed: Signal[][] = [];
    const runner: TransactionRunner = async (body) => {
      handed.push(await body(fakeDb));
      return { onDisk: Promise.resolve() };
    };
    const queue = new WriteQueue(runner, new EventEmitter());
    await Promise.allSettled([
      queue.submit(async (tx) => {
        tx.publish('a', 1);
        tx.publish('b', 2);
      }),
      queue.submit(async (tx) => {
        tx.publish('lost', 3);
        throw new Error('rolled back');
      }),
      queue.submit(async (tx) => tx.publish('c', 4)),
    ]);
    assert.deepEqual(handed.at(-1), [
      { topic: 'a', payload: 1 },
      { topic: 'b', payload: 2 },
      { topic: 'c', payload: 4 },
    ]);
  });

  for (const [when, reports] of [
    ['as the runner returns', 'throws'],
    ['once the runner had returned (PostgreSQL)', 'rejects onDisk'],
  ] as const) {
    test(`a batch whose commit the database turned into a rollback ${when} is never answered as committed: it runs again with a savepoint per unit, and only the unit that swallowed the error fails`, async () => {
      // A stand-in for PostgreSQL: once a statement has failed, the transaction refuses
      // every statement but a rollback (to a savepoint), and COMMIT rolls back.
      let aborted = false;
      const db = {
        executeQuery: async (query: { sql: string }) => {
          if (query.sql === 'rollback to savepoint unit') aborted = false;
          else if (aborted) throw new Error('current transaction is aborted');
          return { rows: [] };
        },
      } as unknown as Kysely<DB>;
      const outcomes: string[] = [];
      const runner: TransactionRunner = async (body) => {
        aborted = false;
        await body(db);
        outcomes.push(aborted ? 'rolled back' : 'committed');
        if (!aborted) return { onDisk: Promise.resolve() };
        if (reports === 'throws') throw new TransactionAborted();
        return { onDisk: Promise.reject(new TransactionAborted()) };
      };
      const queue = new WriteQueue(runner, new EventEmitter());
      const runs: string[] = [];
      const settled = await Promise.allSettled([
        queue.submit(async () => {
          runs.push('fine');
          return 'fine';
        }),
        queue.submit(async () => {
          runs.push('swallows');
          // What a unit must not do (see WriteUnit): its statement failed, and it goes on.
          aborted = true;
          return 'swallowed';
        }),
      ]);
      assert.deepEqual(outcomes, ['rolled back', 'committed']);
      assert.deepEqual(runs, ['fine', 'swallows', 'fine', 'swallows']);
      assert.deepEqual(settled[0], { status: 'fulfilled', value: 'fine' });
      assert.equal(settled[1]!.status, 'rejected');
    });
  }

  test('a batch whose commit turns out a rollback after the next batch committed still runs again isolated', async () => {
    const statements: string[][] = [];
    const db = {
      executeQuery: async (query: { sql: string }) => {
        statements.at(-1)!.push(query.sql);
        return { rows: [] };
      },
    } as unknown as Kysely<DB>;
    const firstCommit = deferred();
    const runner: TransactionRunner = async (body) => {
      statements.push([]);
      await body(db);
      return { onDisk: statements.length === 1 ? firstCommit.promise : Promise.resolve() };
    };
    const queue = new WriteQueue(runner, new EventEmitter());
    const first = queue.submit(async () => 'first');
    await settle();
    // The next batch runs and commits, clean, while the first one's commit is unanswered.
    const second = queue.submit(async () => 'second');
    await settle();
    assert.equal(statements.length, 2);
    firstCommit.reject(new TransactionAborted());
    assert.equal(await first, 'first');
    assert.equal(await second, 'second');
    assert.equal(statements.length, 3);
    assert.deepEqual(statements[2], ['savepoint unit', 'release savepoint unit']);
  });

  test('after-commit work that throws does not keep its batch, or the next, from their answers', async () => {
    const { runner, flushes } = recordingRunner();
    const reported: unknown[] = [];
    const queue = new WriteQueue(runner, new EventEmitter(), {
      reportError: (e) => reported.push(e),
    });
    const first = queue.submit(async (tx) => {
      tx.afterCommit(() => {
        throw new Error('listener bug');
      });
      return 'first';
    });
    const second = queue.submit(async () => 'second');
    await settle();
    const third = queue.submit(async () => 'third');
    await settle();
    for (const flush of flushes) flush.resolve();
    assert.deepEqual(await Promise.all([first, second, third]), ['first', 'second', 'third']);
    assert.deepEqual(
      reported.map((e) => (e as Error).message),
      ['listener bug'],
    );
  });

  test('a failed flush fails every unit of its batch, since their commit may not be on disk', async () => {
    const { runner, flushes } = recordingRunner();
    const queue = new WriteQueue(runner, new EventEmitter());
    const ok = queue.submit(async () => 'ok');
    const own = queue.submit(async () => {
      throw new Error('unit failed on its own');
    });
    await settle();
    flushes[0]!.reject(new Error('EIO'));
    await assert.rejects(ok, /EIO/);
    await assert.rejects(own, /unit failed on its own/);
  });

  test('a batch of only non-durable units asks for no flush; one durable unit makes it durable', async () => {
    const { runner, flushes, batches } = recordingRunner();
    const queue = new WriteQueue(runner, new EventEmitter());
    const lease = queue.submit(async () => 'lease', { durable: false });
    await settle();
    flushes[0]!.resolve();
    await lease;
    const mixed = [
      queue.submit(async () => 'lease', { durable: false }),
      queue.submit(async () => 'send'),
    ];
    await settle();
    flushes[1]!.resolve();
    await Promise.all(mixed);
    assert.deepEqual(
      batches.map((b) => b.durable),
      [false, true],
    );
  });

  test('a burst larger than a batch commits in several of at most 16 units, the next running while one waits for the disk', async () => {
    const { runner, flushes, batches } = recordingRunner();
    const queue = new WriteQueue(runner, new EventEmitter());
    const writes = Array.from({ length: 40 }, (_, i) => queue.submit(async () => i));
    await settle();
    assert.ok(batches.length >= 2, 'a second batch ran before the first was on disk');
    for (let i = 0; i < 10 && flushes.length < 3; i++) {
      flushes.at(-1)!.resolve();
      await settle();
    }
    for (const flush of flushes) flush.resolve();
    assert.deepEqual(await Promise.all(writes), [...Array(40).keys()]);
    assert.equal(batches.length, 3, '16 + 16 + 8');
  });

  test('close waits for batches still waiting for the disk', async () => {
    const { runner, flushes } = recordingRunner();
    const queue = new WriteQueue(runner, new EventEmitter());
    let answered = false;
    void queue.submit(async () => 'x').then(() => (answered = true));
    await settle();
    const closed = queue.close();
    await settle();
    assert.equal(answered, false);
    flushes[0]!.resolve();
    await closed;
    assert.equal(answered, true);
  });
});
