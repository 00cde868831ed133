// The disk's own commit latency: what every durable commit, of Switchboard or of the
// reference, waits for at least once.
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentilesOf, type Percentiles } from './wrk.ts';

/** A stall: one flush this long holds every commit waiting on it, and the sends behind them. */
const STALL_MS = 100;

export interface DiskSyncs {
  count: number;
  percentiles: Percentiles;
  maxMs: number;
  /** Flushes that took longer than STALL_MS. */
  stalls: number;
}

/**
 * Writes 8 kB and flushes it (`fdatasync`, as a commit flushes its log) `perSecond`
 * times a second for `seconds`, in a file of `dir`, and times each flush. The
 * latency probes' sends commit at such a rate, each waiting for at least one flush.
 */
export async function diskSyncs(
  dir: string,
  seconds: number,
  perSecond: number,
): Promise<DiskSyncs> {
  const path = join(dir, 'disk-sync-probe');
  const file = await open(path, 'w');
  const page = Buffer.alloc(8192, 1);
  const latencies: number[] = [];
  try {
    const count = Math.round(seconds * perSecond);
    const start = performance.now();
    for (let i = 0; i < count; i++) {
      const at = start + (i * 1000) / perSecond;
      const wait = at - performance.now();
      if (wait > 0) await sleep(wait);
      const t0 = performance.now();
      // A log grows, then starts over: 1 MB of pages, written over and over.
      await file.write(page, 0, page.length, (i % 128) * page.length);
      await file.datasync();
      latencies.push(performance.now() - t0);
    }
  } finally {
    await file.close();
    await rm(path, { force: true });
  }
  return {
    count: latencies.length,
    percentiles: percentilesOf(latencies),
    maxMs: Math.max(...latencies),
    stalls: latencies.filter((ms) => ms > STALL_MS).length,
  };
}
