// `npm test`: every check the project promises, in order, stopping at the first failure.
// Static checks first (fast), then the test suites on every storage engine.
import { spawnSync } from 'node:child_process';
import { existsSync, globSync } from 'node:fs';

const steps: [string, string, string[]][] = [
  ['type-check', 'tsc', ['-p', 'tsconfig.json', '--noEmit']],
  ['lint and dependency rule', 'eslint', ['--max-warnings=0', '.']],
  ['format', 'prettier', ['--check', '--log-level=warn', '.']],
];

const only = process.argv.slice(2);
for (const [name, command, args] of steps) {
  if (only.length > 0) break;
  process.stdout.write(`\n> ${name}\n`);
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) {
    process.stdout.write(`\n${name} failed.\n`);
    process.exit(result.status ?? 1);
  }
}

const files = only.length > 0 ? only : globSync('packages/*/test/**/*.test.ts').sort();

// The browser suites drive the softphone the server serves from packages/web/dist: build it
// from the sources being tested, never test a stale bundle.
if (files.some((file) => file.includes('packages/web/'))) {
  // Said up front: a suite whose browser cannot start fails in its `before` and leaves its
  // server open, so the run would wait instead of ending.
  const chromium = process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    process.stdout.write(
      `\nThe browser suites need Chromium at ${chromium}: apt-get install -y chromium (or set SWITCHBOARD_CHROMIUM).\n`,
    );
    process.exit(1);
  }
  process.stdout.write('\n> build the softphone\n');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  if (build.status !== 0) {
    process.stdout.write('\nbuild failed.\n');
    process.exit(build.status ?? 1);
  }
}
process.stdout.write(`\n> tests (${files.length} files)\n`);
const result = spawnSync(
  process.execPath,
  ['--test', '--test-reporter=spec', '--test-concurrency=2', '--test-timeout=120000', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
