import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clientAddress } from '../../src/http/client-address.ts';

describe('clientAddress', () => {
  test('an IPv4 client of a dual-stack socket is the same address as over IPv4', () => {
    assert.equal(clientAddress('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(clientAddress('::FFFF:203.0.113.7'), '203.0.113.7');
    assert.equal(clientAddress('203.0.113.7'), '203.0.113.7');
    assert.equal(clientAddress('::1'), '::1');
    assert.equal(clientAddress('2001:db8::ffff:1'), '2001:db8::ffff:1');
  });
});
