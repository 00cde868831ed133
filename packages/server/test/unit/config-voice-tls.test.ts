import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('voice TLS files in the configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'config-voice-tls-'));
  const pem = join(dir, 'file.pem');
  writeFileSync(pem, 'PEM');
  after(() => rmSync(dir, { recursive: true, force: true }));

  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems;
    }
  };

  test('none given: a certificate is made at start and trunks are checked against the system CAs', () => {
    assert.deepEqual(loadConfig({}).voiceTls, { cert: null, key: null, ca: null });
  });

  test('readable files are taken as absolute paths', () => {
    const env = {
      SWITCHBOARD_VOICE_TLS_CERT: pem,
      SWITCHBOARD_VOICE_TLS_KEY: pem,
      SWITCHBOARD_VOICE_TLS_CA: pem,
    };
    assert.deepEqual(loadConfig(env).voiceTls, { cert: pem, key: pem, ca: pem });
  });

  test('a certificate without its key, or a key without its certificate, is refused at start', () => {
    for (const name of ['SWITCHBOARD_VOICE_TLS_CERT', 'SWITCHBOARD_VOICE_TLS_KEY']) {
      assert.deepEqual(problemsOf({ [name]: pem }), [
        'SWITCHBOARD_VOICE_TLS_CERT and SWITCHBOARD_VOICE_TLS_KEY go together',
      ]);
    }
  });

  test('a file that cannot be read is refused at start, naming the variable', () => {
    const missing = join(dir, 'absent.pem');
    assert.deepEqual(problemsOf({ SWITCHBOARD_VOICE_TLS_CA: missing }), [
      `SWITCHBOARD_VOICE_TLS_CA must name a readable PEM file (got '${missing}')`,
    ]);
  });
});
