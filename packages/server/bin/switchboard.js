#!/usr/bin/env node
// The `switchboard` command. The service is TypeScript run by Node 24's type
// stripping; on an older system Node this re-runs itself on the Node 24 that
// the project installs as a dependency.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
// Only what Node 20 has is imported by name: a missing named export fails the module
// before the version check below can hand the command to Node 24.
import fs, { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * V8 flags for `serve`. V8 sizes its heaps for a machine's whole memory by default: on
 * the 24 GiB benchmark machine the young generation of each thread grew to 64–128 MB
 * under load and old-space garbage piled up to several times the live data before a
 * collection (peak resident 420–560 MB). Measured with every role under the POST load:
 * - `--max-semi-space-size=2` (4 on PostgreSQL, see semiSpaceMb): a young generation of
 *   at most 4 MB per thread (8 MB semi-spaces: 213 MB resident, 2 MB: 193 MB, for ~2 %
 *   fewer requests/s);
 * - `--no-allocation-site-pretenuring`: request objects are not born in the old space
 *   once V8 has seen some of them survive (it had, and the old space grew ~5 MB/s
 *   between collections);
 * - `--heap-growing-percent=25`: the old space is collected once it has grown by a
 *   quarter over what was live, not by up to four times.
 * Together: 420 → ~195 MB resident, ~5–10 % more CPU per request. And for V8's compilers:
 * - `--no-concurrent-recompilation`: a thread compiles its hot functions with TurboFan
 *   itself instead of handing them to V8's background threads. Compiled in the background,
 *   the compilers' working memory (malloc'd zones, up to tens of MB at once) stayed
 *   resident after: the bench's peak under the POST load 203–204 → 177–181 MB in two runs
 *   each, requests/s and p99 within the runs' spread. Each compilation now pauses its
 *   thread: in a 20 s POST run, 379 of them, median 1.4 ms, longest 14 ms;
 * - `--liftoff-only`: undici's HTTP parser, WebAssembly, is compiled once by the baseline
 *   compiler and never again by TurboFan, whose compilation of it peaked at 8–11 MB on the
 *   first webhooks; the deliveries/s stayed within the runs' spread.
 */
const SERVER_V8_FLAGS = [
  `--max-semi-space-size=${semiSpaceMb()}`,
  '--no-allocation-site-pretenuring',
  '--heap-growing-percent=25',
  '--no-concurrent-recompilation',
  '--liftoff-only',
];

/**
 * The semi-space size, in MB. On PostgreSQL the store thread allocates for the driver
 * (each query's messages, each answer's rows), and with 2 MB semi-spaces it spent a
 * fifth of its time scavenging under the POST load (35 % of its busy time, in a CPU
 * profile). Whole bench runs on PostgreSQL: with 4 MB, POST 6.4 k requests/s at 135 µs
 * of CPU each, p99 22.2–26.2 ms per round, peak 182 MB; with 8 MB, 5.8 k (the machine
 * slower), p99 20.8–34.4 ms, peak 192 MB; with 2 MB, 5.6–5.9 k at 143–161 µs, p99
 * 22.7–45.4 ms, peak 171 MB (docs/benchmarks.md). SQLite's server keeps 2 MB: its page
 * caches leave less room under the RSS target, and 8 MB had cost ~20 MB of its peak.
 */
function semiSpaceMb() {
  return process.env.DATABASE_URL ? 4 : 2;
}

/**
 * The environment `serve` is started with, under the user's own. glibc gives each
 * thread that allocates (the HTTP and store threads, the checkpointer, libuv's pool,
 * V8's compiler threads) an arena of its own, and freed memory stays in the arena it
 * came from: V8's compiler zones peak at 9–31 MB on a thread while it optimizes. Two
 * arenas: the bench's peak under load 226–250 MB in six short runs without, 216–222 MB
 * in five with (229–235 and 206–233 MB in full runs), CPU per request within the runs'
 * spread.
 */
const SERVER_ENV = { MALLOC_ARENA_MAX: '2' };

/** True for `serve` started without those flags (nor another choice of heap sizes). */
function needsServerFlags() {
  if (process.argv[2] !== 'serve' || typeof process.execve !== 'function') return false;
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return !given.some((flag) =>
    /^--(max-semi-space-size|max-old-space-size|heap-growing-percent)/.test(flag),
  );
}

/**
 * Makes sure Node's compile cache holds every module of `serve` before the server loads
 * them: a module missing from it is type-stripped on load, and the first one stripped
 * loads Node's TypeScript stripper, which then stays resident for the life of the thread
 * (18 MB, on each of the server's two threads). After an install or a change of the
 * sources, a short-lived process loads them all once (~1 s), with this process's V8
 * flags (the cache is kept per set of flags). A marker, named after the sources' sizes
 * and times, the Node version and the flags, says the cache is warm.
 */
function warmCompileCache(cacheDir) {
  const root = new URL('..', import.meta.url).pathname;
  const sources = fs.globSync(['src/**/*.ts', '../sdk/src/**/*.ts'], { cwd: root }).sort();
  const stamp = createHash('sha256');
  stamp.update(`${process.version} ${process.execArgv.join(' ')}\n`);
  for (const file of sources) {
    const { size, mtimeMs } = statSync(join(root, file));
    stamp.update(`${file} ${size} ${mtimeMs}\n`);
  }
  const marker = join(cacheDir, `warm-${stamp.digest('hex').slice(0, 16)}`);
  if (existsSync(marker)) return;
  const warmed = spawnSync(
    process.execPath,
    [...process.execArgv, join(root, 'bin', 'warm-compile-cache.js')],
    { stdio: 'inherit', env: { ...process.env, NODE_COMPILE_CACHE: cacheDir } },
  );
  if (warmed.status === 0) {
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(marker, '');
  }
}

async function run() {
  // Node keeps the compiled (and type-stripped) modules in a cache directory, so a later
  // start skips stripping and compiling them: the TypeScript stripper never loaded, and
  // every CLI command starts sooner. The directory is the user's own cache, not Node's
  // default under the shared temporary one, where another user could have put entries
  // first. NODE_COMPILE_CACHE, if set, has already chosen.
  const cacheDir =
    process.env.NODE_COMPILE_CACHE ||
    join(
      process.env.XDG_CACHE_HOME || join(homedir(), '.cache'),
      'switchboard',
      'node-compile-cache',
    );
  if (!process.env.NODE_COMPILE_CACHE) module.enableCompileCache?.(cacheDir);
  if (process.argv[2] === 'serve') warmCompileCache(cacheDir);
  await import('../src/main.ts');
}

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  const require = createRequire(import.meta.url);
  let node;
  try {
    node = require.resolve('node/bin/node');
  } catch {
    console.error('switchboard needs Node.js 24 or later; run `npm ci` in the project first.');
    process.exit(1);
  }
  const result = spawnSync(node, process.argv.slice(1), { stdio: 'inherit' });
  process.exit(result.status ?? 1);
} else if (needsServerFlags()) {
  // The flags can only be given when V8 starts (and glibc reads its settings when the
  // process does): the process replaces itself with one started with them (the same
  // process id and arguments). Where that is not possible (Windows) it runs with the
  // defaults.
  try {
    process.execve(
      process.execPath,
      [process.execPath, ...process.execArgv, ...SERVER_V8_FLAGS, ...process.argv.slice(1)],
      { ...SERVER_ENV, ...process.env },
    );
  } catch {
    await run();
  }
} else {
  await run();
}
