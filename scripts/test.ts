// `npm test`: every check the project promises, in order, stopping at the first failure.
// Static checks first (fast), then the peers the suites need (installed or started when
// missing, see test-peers.ts), then the test suites on every storage engine.
import { spawn, spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';
import {
  CHROMIUM,
  NET_SMPP,
  VOICE,
  ensureDebianPeers,
  postgresAnswers,
  startThrowawayPostgres,
  type ThrowawayPostgres,
} from './test-peers.ts';

const steps: [string, string, string[]][] = [
  ['type-check', 'tsc', ['-p', 'tsconfig.json', '--noEmit']],
  ['lint and dependency rule', 'eslint', ['--max-warnings=0', '.']],
  ['format', 'prettier', ['--check', '--log-level=warn', '.']],
];

const stop = (message: string, code = 1): never => {
  process.stdout.write(`\n${message}\n`);
  process.exit(code);
};

const only = process.argv.slice(2);
for (const [name, command, args] of steps) {
  if (only.length > 0) break;
  process.stdout.write(`\n> ${name}\n`);
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) stop(`${name} failed.`, result.status ?? 1);
}

const files = only.length > 0 ? only : globSync('packages/*/test/**/*.test.ts').sort();
const env: NodeJS.ProcessEnv = { ...process.env };

// Programs from Debian that some suites drive, installed in one go when missing: Chromium for
// the browser suites, Net::SMPP for the SMPP and live-carrier suites' SMSC (test/support/smsc.pl).
// Checked up front: a suite whose browser cannot start fails in its `before` and leaves its
// server open, so the run would wait instead of ending.
const browser = files.some((file) => file.includes('packages/web/'));
const peers = [
  ...(browser ? [CHROMIUM] : []),
  ...(files.some((file) => /smpp|live-|carrier/.test(file)) ? [NET_SMPP] : []),
  ...(files.some((file) => file.includes('/voice-')) ? VOICE : []),
];
if (peers.length > 0) {
  const problem = ensureDebianPeers(peers);
  if (problem) stop(problem);
}

// The browser suites drive the softphone the server serves from packages/web/dist: build it
// from the sources being tested, never test a stale bundle.
if (browser) {
  process.stdout.write('\n> build the softphone\n');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  if (build.status !== 0) stop('build failed.', build.status ?? 1);
}

// PostgreSQL is the second engine under test: the one at the configured URL when it
// answers, else a throwaway server for this run. Never skipped in silence.
let throwaway: ThrowawayPostgres | null = null;
const engines = (env.SWITCHBOARD_TEST_ENGINES ?? 'sqlite,postgres').split(',');
if (engines.some((engine) => engine.trim() === 'postgres')) {
  const url = env.SWITCHBOARD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  if (!(await postgresAnswers(url))) {
    process.stdout.write(`\n> start a throwaway PostgreSQL (none answers at ${url})\n`);
    try {
      throwaway = await startThrowawayPostgres();
    } catch (error) {
      stop(
        `Could not start a PostgreSQL server for the tests: ${String(error)}\n` +
          'Start one (database `test`, trust auth) and set SWITCHBOARD_TEST_PG_URL, ' +
          'or run SQLite only with SWITCHBOARD_TEST_ENGINES=sqlite.',
      );
    }
    env.SWITCHBOARD_TEST_PG_URL = throwaway!.url;
    process.stdout.write(`  PostgreSQL for this run: ${throwaway!.url}\n`);
  }
}

process.stdout.write(`\n> tests (${files.length} files)\n`);
const runner = spawn(
  process.execPath,
  ['--test', '--test-reporter=spec', '--test-concurrency=2', '--test-timeout=120000', ...files],
  { stdio: 'inherit', env },
);
// A stop asked of this process is passed on; the throwaway server is removed after the runner.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => runner.kill(signal));
const status = await new Promise<number>((resolve) =>
  runner.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))),
);
await throwaway?.stop();
process.exit(status);
