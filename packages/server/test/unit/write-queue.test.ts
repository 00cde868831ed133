import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/store/schema.ts';
import {
  BACKGROUND_WAIT_MS,
  TransactionAborted,
  WriteQueue,
  type Signal,
  type TransactionRunner,
  type WriteTx,
} from '../../src/store/engine/write-queue.ts';

/** A stand-in connection: savepoint statements succeed and do nothing. */
const fakeDb = { executeQuery: async () => ({ rows: [] }) } as unknown as Kysely<DB>;

/** A disk flush the test finishes by hand. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A transaction runner that records each batch's units and hands back a flush
 * the test completes, as the SQLite store's WAL flush would complete later.
 */
function recordingRunner() {
  const flushes: ReturnType<typeof deferred>[] = [];
  const batches: { durable: boolean }[] = [];
  const runner: TransactionRunner = async (body, durable) => {
    await body(fakeDb);
    batches.push({ durable });
    const flush = deferred();
    flushes.push(flush);
    return { onDisk: flush.promise };
  };
  return { runner, flushes, batches };
}

/** A transaction runner already on disk, recording the names its batches' units `record`. */
function namingRunner() {
  const batches: string[][] = [];
  let current: string[] = [];
  const runner: TransactionRunner = async (body) => {
    current = [];
    await body(fakeDb);
    batches.push(current);
    return { onDisk: Promise.resolve() };
  };
  return { runner, batches, record: (name: string) => current.push(name) };
}

/** Lets every pending turn and microtask run. */
async function settle() {
  for (let i = 0; i < 5; i++) await nextTurn();
}

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

  test('a unit of a background lane runs at once when no request waits', async () => {
    const { runner, batches, record } = namingRunner();
    const queue = new WriteQueue(runner, new EventEmitter());
    await queue.submit(async () => record('receipts'), { lane: 'carrier' });
    assert.deepEqual(batches, [['receipts']]);
  });

  /** Holds the thread for `ms`, as a batch of real statements would. */
  function work(ms: number) {
    const until = performance.now() + ms;
    while (performance.now() < until);
  }

  test('while requests keep the writer busy, background units commit once per BACKGROUND_WAIT_MS, no more and no less', async () => {
    const { runner, batches, record } = namingRunner();
    const queue = new WriteQueue(runner, new EventEmitter());
    const backgroundAt: number[] = [];
    let stop = false;
    // The carrier side: a round as soon as the last one committed, as its pumps do. Each
    // round is timed when its unit runs in a batch, right after the queue let it in.
    const carrier = (async () => {
      while (!stop) {
        await queue.submit(
          async () => {
            backgroundAt.push(performance.now());
            record('receipts');
          },
          { lane: 'carrier' },
        );
      }
    })();
    // Requests back to back for 400 ms, each holding the writer 0.5 ms: it is never idle.
    const started = performance.now();
    let sends = 0;
    while (performance.now() - started < 400) {
      await queue.submit(async () => {
        work(0.5);
        record(`send ${sends++}`);
      });
    }
    stop = true;
    await carrier;
    // From three of the load's time constants in (it is a decaying average of the writer's
    // time): on a loaded machine the first rounds may come before it has crossed BUSY_SHARE.
    const busy = backgroundAt.filter((at) => at - started > 75 && at - started < 400);
    const gaps = busy.slice(1).map((at, i) => at - busy[i]!);
    const mean = (busy.at(-1)! - busy[0]!) / gaps.length;
    assert.ok(sends > 100, `requests kept coming (${sends})`);
    // On average, not each gap: a stall of the machine between the queue's letting a round
    // in and its unit running makes that gap longer and the next one shorter by as much.
    // Without the rule a round joins every batch, about 1 ms apart.
    assert.ok(
      mean >= BACKGROUND_WAIT_MS - 1 && gaps.every((gap) => gap >= BACKGROUND_WAIT_MS / 2),
      `no more often than every ${BACKGROUND_WAIT_MS} ms: ${gaps.map(Math.round).join(', ')}`,
    );
    assert.ok(busy.length >= 4, `and it never stops: ${busy.length} rounds in 325 ms`);
    assert.ok(
      batches.some((b) => b.includes('receipts') && b.some((u) => u.startsWith('send'))),
      'a background turn shares its batch with requests',
    );
  });

  test('a trickle of requests that leaves the writer mostly idle holds the background back for nobody', async () => {
    const runner: TransactionRunner = async (body) => {
      await body(fakeDb);
      return { onDisk: Promise.resolve() };
    };
    const queue = new WriteQueue(runner, new EventEmitter());
    const waits: number[] = [];
    // A request every 2 ms (500/s), each 0.05 ms of work, and a background round after each.
    for (let i = 0; i < 50; i++) {
      await queue.submit(async () => work(0.05));
      const queued = performance.now();
      await queue.submit(async () => {}, { lane: 'carrier' });
      waits.push(performance.now() - queued);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const slow = waits.filter((w) => w >= BACKGROUND_WAIT_MS / 2);
    assert.deepEqual(
      slow,
      [],
      `background rounds ran at once: ${waits.map(Math.round).join(', ')}`,
    );
  });

  /**
   * A request lane and a background lane on connections of their own (PostgreSQL): each
   * transaction waits `roundTripMs` on the server, not on this thread. Returns the times
   * each background round ran, and how many requests committed.
   */
  async function pacedLanes(options: {
    roundTripMs: number;
    /** Requests in flight at once, each submitted again as soon as it commits. */
    clients: number;
    /** Pause before a client's next request. */
    thinkMs: number;
    durationMs: number;
  }) {
    const runner: TransactionRunner = async (body) => {
      await body(fakeDb);
      await new Promise((resolve) => setTimeout(resolve, options.roundTripMs));
      return { onDisk: Promise.resolve() };
    };
    const requests = new WriteQueue(runner, new EventEmitter());
    const carrier = new WriteQueue(runner, new EventEmitter(), { paceBy: requests });
    const backgroundAt: number[] = [];
    const started = performance.now();
    const running = () => performance.now() - started < options.durationMs;
    let sends = 0;
    const rounds = (async () => {
      while (running()) {
        await carrier.submit(async () => void backgroundAt.push(performance.now() - started), {
          lane: 'carrier',
        });
      }
    })();
    await Promise.all(
      Array.from({ length: options.clients }, async () => {
        while (running()) {
          await requests.submit(async () => void sends++);
          if (options.thinkMs > 0) await new Promise((r) => setTimeout(r, options.thinkMs));
        }
      }),
    );
    await rounds;
    return { backgroundAt, sends };
  }

  test('on its own connection, a background lane commits once per BACKGROUND_WAIT_MS while more requests wait than a batch takes', async () => {
    // 64 clients back to back: every batch of 16 leaves requests waiting.
    const { backgroundAt, sends } = await pacedLanes({
      roundTripMs: 2,
      clients: 64,
      thinkMs: 0,
      durationMs: 400,
    });
    const busy = backgroundAt.filter((at) => at > 50);
    const gaps = busy.slice(1).map((at, i) => at - busy[i]!);
    const mean = (busy.at(-1)! - busy[0]!) / gaps.length;
    assert.ok(sends > 200, `requests kept coming (${sends})`);
    // Without the rule a round commits every round trip, ~2 ms apart.
    assert.ok(
      mean >= BACKGROUND_WAIT_MS - 1 && gaps.every((gap) => gap >= BACKGROUND_WAIT_MS / 2),
      `no more often than every ${BACKGROUND_WAIT_MS} ms: ${gaps.map(Math.round).join(', ')}`,
    );
    assert.ok(busy.length >= 4, `and it never stops: ${busy.length} rounds in 350 ms`);
  });

  test('on its own connection, a background lane is not held back by requests that a batch at a time keeps up with', async () => {
    // Four clients, each pausing 5 ms: the request lane is in a transaction most of the
    // time, yet no request waits for more than the batch under way.
    const { backgroundAt, sends } = await pacedLanes({
      roundTripMs: 2,
      clients: 4,
      thinkMs: 5,
      durationMs: 300,
    });
    const mean = (backgroundAt.at(-1)! - backgroundAt[0]!) / (backgroundAt.length - 1);
    assert.ok(sends > 50, `requests kept coming (${sends})`);
    // On average: a stall of a loaded machine may hold one round back for longer. Held
    // back by the rule, rounds would come every BACKGROUND_WAIT_MS.
    assert.ok(
      backgroundAt.length > 50 && mean < BACKGROUND_WAIT_MS / 4,
      `background rounds ran at once: ${backgroundAt.length} rounds, ${mean.toFixed(1)} ms apart`,
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

  /**
   * A pipelining connection's stand-in: a unit's statement is "sent" when it calls
   * `statement`, and answered only when the test says so.
   */
  function pipelineRunner() {
    const sent: string[] = [];
    const answers: (() => void)[] = [];
    const statement = (name: string) => {
      sent.push(name);
      const answer = deferred();
      answers.push(answer.resolve);
      return answer.promise;
    };
    let runs = 0;
    const runner: TransactionRunner = async (body) => {
      runs++;
      await body(fakeDb);
      return { onDisk: Promise.resolve() };
    };
    return { runner, sent, answers, statement, runs: () => runs };
  }

  test('on a pipelining queue, a unit that has sent all its statements lets the next unit send before its answer, and each is answered with its own result', async () => {
    const { runner, sent, answers, statement } = pipelineRunner();
    const queue = new WriteQueue(runner, new EventEmitter(), { pipelined: true });
    const unit = (name: string) => async (tx: WriteTx) => {
      const answered = statement(name);
      tx.sentAll();
      await answered;
      return name;
    };
    const writes = ['a', 'b', 'c'].map((name) => queue.submit(unit(name)));
    await settle();
    assert.deepEqual(sent, ['a', 'b', 'c'], 'all three sent before any answer');
    answers.forEach((answer) => answer());
    assert.deepEqual(await Promise.all(writes), ['a', 'b', 'c']);
  });

  test('on a pipelining queue, a unit that does not say it has sent all runs alone until it ends', async () => {
    const { runner, sent, answers, statement } = pipelineRunner();
    const queue = new WriteQueue(runner, new EventEmitter(), { pipelined: true });
    const first = queue.submit(async () => {
      await statement('read');
      await statement('write');
    });
    const second = queue.submit(async () => statement('next'));
    await settle();
    assert.deepEqual(sent, ['read']);
    answers[0]!();
    await settle();
    assert.deepEqual(sent, ['read', 'write'], 'the second unit waits for the first to end');
    answers[1]!();
    await settle();
    assert.deepEqual(sent, ['read', 'write', 'next']);
    answers[2]!();
    await Promise.all([first, second]);
  });

  test('a queue that does not pipeline runs each unit to its end, whatever it says', async () => {
    const { runner, sent, answers, statement } = pipelineRunner();
    const queue = new WriteQueue(runner, new EventEmitter());
    const writes = ['a', 'b'].map((name) =>
      queue.submit(async (tx) => {
        const answered = statement(name);
        tx.sentAll();
        await answered;
      }),
    );
    await settle();
    assert.deepEqual(sent, ['a']);
    answers[0]!();
    await settle();
    assert.deepEqual(sent, ['a', 'b']);
    answers[1]!();
    await Promise.all(writes);
  });

  test('on a pipelining queue, a unit that fails after the next ones were sent fails alone: the batch runs again, a unit at a time, and ends only once every started unit has', async () => {
    const { runner, sent, answers, statement, runs } = pipelineRunner();
    const queue = new WriteQueue(runner, new EventEmitter(), { pipelined: true });
    const unit = (name: string) => async (tx: WriteTx) => {
      const answered = statement(name);
      tx.sentAll();
      await answered;
      if (name === 'bad') throw new Error('opted out');
      return name;
    };
    const writes = ['ok1', 'bad', 'ok2'].map((name) => queue.submit(unit(name)));
    const results = Promise.allSettled(writes);
    await settle();
    assert.deepEqual(sent, ['ok1', 'bad', 'ok2']);
    // The failing unit is answered first; the batch is not over while ok2 awaits its answer.
    answers[1]!();
    await settle();
    assert.equal(runs(), 1, 'the batch has not ended before its last unit did');
    answers[0]!();
    answers[2]!();
    // Run again, isolated: one unit at a time, each answered as it is sent.
    for (let i = 0; i < 100 && sent.length < 6; i++) {
      await settle();
      answers.slice(3).forEach((answer) => answer());
    }
    const [ok1, bad, ok2] = (await results) as [
      PromiseSettledResult<string>,
      PromiseSettledResult<string>,
      PromiseSettledResult<string>,
    ];
    assert.equal(runs(), 2);
    assert.deepEqual(sent.slice(3), ['ok1', 'bad', 'ok2']);
    assert.deepEqual([ok1.status, bad.status, ok2.status], ['fulfilled', 'rejected', 'fulfilled']);
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
