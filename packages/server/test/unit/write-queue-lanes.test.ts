// The write queue's lanes (background work paced beside requests) and pipelining.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import {
  BACKGROUND_WAIT_MS,
  WriteQueue,
  type TransactionRunner,
  type WriteTx,
} from '../../src/store/engine/write-queue.ts';
import { deferred, fakeDb, namingRunner, settle } from '../support/write-queue-rig.ts';

describe('write queue: lanes and pipelining', () => {
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
});
