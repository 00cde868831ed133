import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
/** Linting a document this size takes a second or two; a hung lint is killed well after. */
const LINT_TIMEOUT_MS = 120_000;

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location?: { pointer?: string }[] }[];
}

/** Runs `redocly lint` (this Node, the repository's redocly.yaml) on `file`, offline. */
function lint(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [REDOCLY, 'lint', '--config', join(ROOT, 'redocly.yaml'), '--format=json', file],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), LINT_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

for (const engine of ENGINES) {
  describe(`API description lint [${engine}]`, () => {
    let t: TestApp;
    let dir: string;
    before(async () => {
      t = await startTestApp(engine, { background: false });
      dir = mkdtempSync(join(tmpdir(), 'switchboard-openapi-'));
    });
    after(async () => {
      rmSync(dir, { recursive: true, force: true });
      await t.close();
    });

    test('the served document passes redocly lint (recommended and redocly.yaml) with no error and no warning', async () => {
      const res = await fetch(`${t.url}/v1/openapi.json`);
      assert.equal(res.status, 200);
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(await res.json(), null, 2));
      const { code, stdout, stderr } = await lint(file);
      const start = stdout.indexOf('{');
      assert.ok(start >= 0, `redocly printed no report (exit ${code}): ${stderr}`);
      const report = JSON.parse(stdout.slice(start)) as LintReport;
      const problems = report.problems.map(
        (p) => `${p.ruleId} at ${p.location?.[0]?.pointer ?? '?'}: ${p.message}`,
      );
      assert.deepEqual(problems, [], 'no problem');
      assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 });
      assert.equal(code, 0, stderr);
    });
  });
}
