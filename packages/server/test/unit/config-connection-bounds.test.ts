import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('connection bounds in the configuration', () => {
  test('a headers timeout longer than the request timeout is refused at start, naming both', () => {
    assert.throws(
      () =>
        loadConfig({
          SWITCHBOARD_HEADERS_TIMEOUT_MS: '20000',
          SWITCHBOARD_REQUEST_TIMEOUT_MS: '10000',
        }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.some(
          (p) =>
            p.includes('SWITCHBOARD_HEADERS_TIMEOUT_MS') &&
            p.includes('SWITCHBOARD_REQUEST_TIMEOUT_MS'),
        ),
    );
  });

  test('a timeout or a per-address limit that is not a whole number in range is refused', () => {
    const invalid: [string, string][] = [
      ['SWITCHBOARD_KEEP_ALIVE_TIMEOUT_MS', '0'],
      ['SWITCHBOARD_REQUEST_TIMEOUT_MS', '1.5'],
      ['SWITCHBOARD_MAX_CONNECTIONS_PER_ADDRESS', '-1'],
      ['SWITCHBOARD_UNAUTHENTICATED_RATE_LIMIT', 'many'],
    ];
    for (const [name, value] of invalid) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: unknown) =>
          error instanceof ConfigError && error.problems.some((p) => p.startsWith(name)),
        `${name}=${value}`,
      );
    }
  });
});
