import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

const STORE_THREAD_BODY = join(import.meta.dirname, '../../src/threads/store-thread-body.ts');
const src = (file: string) =>
  JSON.stringify(pathToFileURL(join(import.meta.dirname, '../../src', file)).href);
/**
 * What the HTTP thread of `serve` runs to deliver a webhook: its own modules (the app and
 * the client of the store thread), then one POST through the webhook dispatcher.
 */
const HTTP_THREAD_DELIVERS = `
  await import(${src('server.ts')});
  const { webhookDispatcher } = await import(${src('delivery/guarded-dispatcher.ts')});
  const { postWebhook } = await import(${src('delivery/post-webhook.ts')});
  const { createServer } = await import('node:http');
  const receiver = createServer((req, res) => req.resume().on('end', () => res.end('ok')));
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const dispatcher = webhookDispatcher({ allowPrivate: true });
  const result = await postWebhook({
    url: 'http://127.0.0.1:' + receiver.address().port + '/hook',
    body: '{}', headers: { 'content-type': 'application/json' }, dispatcher, timeoutMs: 5000,
  });
  if (result.status !== 200) throw new Error(JSON.stringify(result));
  await dispatcher.close();
  receiver.close();
`;

/** Every module URL a fresh process loads while it runs `script`, and how it exited. */
function modulesLoadedBy(script: string): { loaded: string[]; status: number | null } {
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
      '--input-type=module',
      '-e',
      script,
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  return { loaded: JSON.parse(result.stdout) as string[], status: result.status };
}

describe('what each thread of serve loads', () => {
  test('the store thread does not load undici: the HTTP thread makes the webhook requests', () => {
    // Its body expects to run in a worker and fails after loading: only what it loads counts.
    const { loaded } = modulesLoadedBy(
      `await import(${JSON.stringify(pathToFileURL(STORE_THREAD_BODY).href)}).catch(() => {})`,
    );
    assert.ok(
      loaded.some((url) => url.endsWith('/src/workers/background.ts')),
      'the store thread’s modules were loaded',
    );
    assert.deepEqual(
      loaded.filter((url) => url.includes('/node_modules/undici/')),
      [],
    );
  });

  test('the HTTP thread loads the undici dispatcher it delivers with, not all of undici nor its stream-wrapping request API', () => {
    const run = modulesLoadedBy(HTTP_THREAD_DELIVERS);
    assert.equal(run.status, 0, 'the webhook was delivered');
    const loaded = run.loaded.filter((url) => url.includes('/node_modules/undici/'));
    assert.ok(
      loaded.some((url) => url.endsWith('/undici/lib/dispatcher/agent.js')),
      'the Agent was loaded',
    );
    // The entry point loads fetch, WebSocket, the caches, the mock and proxy agents; the
    // `request` API wraps each answer in a stream, which a delivery does without.
    assert.deepEqual(
      loaded.filter(
        (url) =>
          url.endsWith('/undici/index.js') ||
          url.includes('/lib/web/') ||
          url.includes('/lib/api/'),
      ),
      [],
    );
  });
});
