// The bench's rounds: the reference and Switchboard take turns, and the report is made of
// the rounds' medians, so one round on a machine that slowed for a while cannot decide a target.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { median, mergeRounds, summarize, type Measurements } from '../../bench/lib/summary.ts';
import type { LoadResult } from '../../bench/lib/wrk.ts';

function load(perSecond: number, p99: number, errors = 0): LoadResult {
  return {
    requests: perSecond * 10,
    seconds: 10,
    perSecond,
    errors,
    errorKinds: errors > 0 ? { status: errors } : {},
    failedStatuses: errors > 0 ? { '500': errors } : {},
    firstFailure: errors > 0 ? 'HTTP 500' : '',
    p50: p99 / 4,
    p99,
    max: p99 * 2,
    percentiles: [
      [50, p99 / 4],
      [99, p99],
    ],
    cpuUsPerRequest: 1e6 / perSecond,
  };
}

function measurements(over: Partial<Measurements>): Measurements {
  return {
    connections: 64,
    messages: 1_000_000,
    endpoints: 4,
    refPosts: [load(30_000, 5)],
    sbPosts: [load(22_000, 20)],
    gets10k: [load(20_000, 8)],
    gets1m: [load(19_000, 9)],
    fanOuts: [{ perSecond: 8000 }],
    refLoops: [{ perSecond: 10_000 }],
    toWebhook: { latencies: [5, 6, 7], missing: 0 },
    toPush: { latencies: [2, 3, 4], missing: 0 },
    rss: 180,
    signInRss: 210,
    drainSeconds: 1,
    seedSeconds: 20,
    ...over,
  };
}

const target = (m: Measurements, name: string) =>
  summarize(m).targets.find((t) => t.name.startsWith(name))!;

describe('bench rounds', () => {
  test('the median of an odd count is its middle value, of an even count the lower middle', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2);
    assert.equal(median([7]), 7);
  });

  test('merged rounds keep the median rate and p99, and every error of every round', () => {
    const merged = mergeRounds([load(9000, 40), load(11_000, 20, 3), load(10_000, 30)]);
    assert.equal(merged.perSecond, 10_000);
    assert.equal(merged.p99, 30);
    assert.equal(merged.errors, 3);
    assert.deepEqual(merged.failedStatuses, { '500': 3 });
    assert.deepEqual(merged.percentiles, load(10_000, 30).percentiles);
  });

  test('a ratio target is judged on the median of the rounds’ ratios, each to its own reference', () => {
    // The machine slowed in round 2: both sides of that round fell alike.
    const m = measurements({
      fanOuts: [{ perSecond: 7500 }, { perSecond: 5000 }, { perSecond: 7000 }],
      refLoops: [{ perSecond: 10_000 }, { perSecond: 6000 }, { perSecond: 10_000 }],
    });
    const fanOut = target(m, 'webhook deliveries');
    assert.equal(fanOut.measured, '75 %');
    assert.equal(fanOut.met, true);
    // Medians of each side alone would compare 7 000 with 10 000: 70 %, not what any round saw.
  });

  test('the POST targets miss when the median round misses, or when any round had an error', () => {
    const slow = measurements({
      refPosts: [load(30_000, 5), load(30_000, 5), load(30_000, 5)],
      sbPosts: [load(25_000, 20), load(15_000, 30), load(20_000, 26)],
    });
    assert.equal(target(slow, 'POST ≥ 70 %').met, false);
    assert.equal(target(slow, 'POST p99').met, false);
    const failing = measurements({
      refPosts: [load(30_000, 5), load(30_000, 5), load(30_000, 5)],
      sbPosts: [load(25_000, 20), load(25_000, 20, 1), load(25_000, 20)],
    });
    assert.equal(target(failing, 'POST ≥ 70 %').met, true);
    assert.equal(target(failing, 'POST p99').met, false);
  });

  test('the GET target compares the median p99 of the rounds at each size', () => {
    // One round at 1 M caught a stall of the machine; the other two stayed flat.
    const m = measurements({
      gets10k: [load(20_000, 5), load(20_000, 6), load(20_000, 4.5)],
      gets1m: [load(19_000, 6.1), load(19_000, 38), load(19_000, 6)],
    });
    const get = target(m, 'GET p99');
    assert.equal(get.measured, '1.22×');
    assert.equal(get.met, true);
    const slow = measurements({
      gets10k: [load(20_000, 5), load(20_000, 5), load(20_000, 5)],
      gets1m: [load(19_000, 9), load(19_000, 8), load(19_000, 6)],
    });
    assert.equal(target(slow, 'GET p99').met, false);
  });

  test('the floor is reported against the reference it took turns with, and Switchboard against the floor', () => {
    const m = measurements({
      refPosts: [load(30_000, 5), load(20_000, 5), load(30_000, 5)],
      floorPosts: [load(15_000, 10), load(12_000, 10), load(13_500, 10)],
      sbPosts: [load(10_000, 20), load(6000, 20), load(9000, 20)],
    });
    const rows = summarize(m).rows;
    const floor = rows.find((r) => r.name.startsWith('POST, the floor') && r.ratio)!;
    // Round ratios 50 %, 60 %, 45 %: the median round, not the medians of each side (13.5 k/30 k).
    assert.equal(floor.ratio, '50 %');
    const toFloor = rows.find((r) => r.name.startsWith('POST: Switchboard to its floor'))!;
    assert.equal(toFloor.value, '67 %, 50 %, 67 %');
    // The floor informs; the target stays Switchboard's own ratio to the reference.
    assert.equal(target(m, 'POST ≥ 70 %').measured, '30 %');
    // The chart draws the floor's round with the median p99, as it does every load's.
    const chart = summarize(m).series.find((s) => s.name === 'POST, the floor')!;
    assert.deepEqual(chart.percentiles, load(13_500, 10).percentiles);
  });

  test("a probe's warm-up is reported in a row of its own and not judged; a warm-up send that never arrived fails the target", () => {
    const slowStart = measurements({
      toWebhook: {
        latencies: Array.from({ length: 100 }, (_, i) => 10 + i / 10),
        missing: 0,
        warmUp: { latencies: Array.from({ length: 100 }, () => 300), missing: 0 },
      },
    });
    const { rows } = summarize(slowStart);
    const row = (name: string) => rows.find((r) => r.name === name)?.value;
    assert.equal(row('POST → message.delivered webhook p50 / p99'), '14.9 ms / 19.8 ms');
    assert.equal(
      row('POST → message.delivered webhook, its warm-up (not judged) p50 / p99'),
      '300.0 ms / 300.0 ms',
    );
    assert.equal(target(slowStart, 'POST → delivered').met, true);
    const lost = measurements({
      toWebhook: { latencies: [5, 6, 7], missing: 0, warmUp: { latencies: [5], missing: 1 } },
    });
    assert.equal(target(lost, 'POST → delivered').met, false);
    assert.equal(target(lost, 'POST → delivered').measured, '7.00 ms, 1 missing');
  });

  test('results without a warm-up (written before the probes had one) report none', () => {
    assert.equal(
      summarize(measurements({})).rows.some((r) => r.name.includes('warm-up')),
      false,
    );
  });

  test('results without the floor (written before it was measured) report no floor', () => {
    const { rows, series } = summarize(measurements({}));
    assert.equal(
      rows.some((r) => r.name.includes('floor')),
      false,
    );
    assert.equal(
      series.some((s) => s.name.includes('floor')),
      false,
    );
  });

  test("the disk's flushes are reported with their p50, p99, longest and stalls, and judge no target", () => {
    const disk = {
      count: 2000,
      percentiles: [
        [50, 0.45],
        [99, 2.4],
      ] as [number, number][],
      maxMs: 955,
      stalls: 3,
    };
    const withDisk = summarize(measurements({ disk }));
    const row = (start: string) => withDisk.rows.find((r) => r.name.startsWith(start))?.value;
    assert.equal(
      row('the disk: 8 kB flushed (fdatasync) 2,000 times'),
      '0.45 ms / 2.40 ms / 955.0 ms',
    );
    assert.equal(row('the disk: flushes over 100 ms'), '3');
    assert.deepEqual(withDisk.targets, summarize(measurements({})).targets);
    assert.equal(
      summarize(measurements({})).rows.some((r) => r.name.startsWith('the disk')),
      false,
    );
  });
});
