import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

const STORE_THREAD_BODY = join(import.meta.dirname, '../../src/threads/store-thread-body.ts');

/** Every module URL a fresh process loads while importing `file` (its body may then fail). */
function modulesLoadedBy(file: string): string[] {
  const recorder = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    process.on('exit', () => process.stdout.write(JSON.stringify(loaded)));
  `;
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(recorder)}`,
      '-e',
      `import(${JSON.stringify(pathToFileURL(file).href)}).catch(() => {})`,
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  return JSON.parse(result.stdout) as string[];
}

describe('what each thread of serve loads', () => {
  test('the store thread does not load undici: the HTTP thread makes the webhook requests', () => {
    const loaded = modulesLoadedBy(STORE_THREAD_BODY);
    assert.ok(
      loaded.some((url) => url.endsWith('/src/workers/background.ts')),
      'the store thread’s modules were loaded',
    );
    assert.deepEqual(
      loaded.filter((url) => url.includes('/node_modules/undici/')),
      [],
    );
  });
});
