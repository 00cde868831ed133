import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import { CommittedCache } from '../../src/store/engine/committed-cache.ts';
import type { ReadStore } from '../../src/store/store.ts';

const CHANGED = 'row.changed';

/** A store whose other-process commits the test moves by hand (`foreign`). */
function fakeStore() {
  const fake = { signals: new EventEmitter(), foreign: 0 };
  const store = {
    engine: 'sqlite',
    signals: fake.signals,
    foreignChanges: () => fake.foreign,
  } as unknown as ReadStore;
  return { fake, store };
}

/** A load the test answers when it chooses, counting how often it was started. */
function controlledLoads() {
  const started: ((value: string | undefined) => void)[] = [];
  const load = () => new Promise<string | undefined>((resolve) => started.push(resolve));
  return { started, load };
}

function cacheOn(store: ReadStore) {
  return new CommittedCache<string>(store, CHANGED, (payload) => (payload as { id: string }).id);
}

describe('committed copies of rows', () => {
  test('reads of a key while its load runs share that load', async () => {
    const { store } = fakeStore();
    const cache = cacheOn(store);
    const { started, load } = controlledLoads();
    const reads = [cache.get('a', load), cache.get('a', load), cache.get('a', load)];
    assert.equal(started.length, 1);
    started[0]!('first');
    assert.deepEqual(await Promise.all(reads), ['first', 'first', 'first']);
    cache.close();
  });

  test('a read after a local change of the key does not share the load that started before it', async () => {
    const { fake, store } = fakeStore();
    const cache = cacheOn(store);
    const { started, load } = controlledLoads();
    const before = cache.get('a', load);
    fake.signals.emit(CHANGED, { id: 'a' });
    const after = cache.get('a', load);
    assert.equal(started.length, 2);
    started[0]!('old');
    started[1]!('new');
    assert.equal(await before, 'old');
    assert.equal(await after, 'new');
    // The copy kept is the one loaded after the change.
    assert.equal(await cache.get('a', load), 'new');
    assert.equal(started.length, 2);
    cache.close();
  });

  test("a read after another process's commit does not share the load that started before it", async () => {
    const { fake, store } = fakeStore();
    const cache = cacheOn(store);
    const { started, load } = controlledLoads();
    const before = cache.get('a', load);
    fake.foreign++;
    const after = cache.get('a', load);
    assert.equal(started.length, 2);
    started[0]!('old');
    started[1]!('new');
    assert.deepEqual([await before, await after], ['old', 'new']);
    cache.close();
  });

  test('a load that failed is not shared with the reads after it', async () => {
    const { store } = fakeStore();
    const cache = cacheOn(store);
    let loads = 0;
    await assert.rejects(
      cache.get('a', async () => {
        loads++;
        throw new Error('connection lost');
      }),
      /connection lost/,
    );
    assert.equal(await cache.get('a', async () => (loads++, 'loaded')), 'loaded');
    assert.equal(loads, 2);
    cache.close();
  });

  test('a load that started before a change and ends after it leaves the newer load to the reads after it', async () => {
    const { fake, store } = fakeStore();
    const cache = cacheOn(store);
    const { started, load } = controlledLoads();
    const older = cache.get('a', load);
    fake.signals.emit(CHANGED, { id: 'a' });
    const newer = cache.get('a', load);
    started[0]!('old');
    assert.equal(await older, 'old');
    // The newer load still runs: a read now shares it instead of starting a third.
    const joined = cache.get('a', load);
    assert.equal(started.length, 2);
    started[1]!('new');
    assert.deepEqual([await newer, await joined], ['new', 'new']);
    cache.close();
  });

  test('a read that joined a load that failed loads again by itself', async () => {
    const { store } = fakeStore();
    const cache = cacheOn(store);
    let loads = 0;
    let fail!: (error: Error) => void;
    const failing = () => (loads++, new Promise<string>((_, reject) => (fail = reject)));
    const first = cache.get('a', failing);
    const joined = cache.get('a', async () => (loads++, 'loaded'));
    fail(new Error('connection lost'));
    await assert.rejects(first, /connection lost/);
    assert.equal(await joined, 'loaded');
    assert.equal(loads, 2);
    cache.close();
  });
});
