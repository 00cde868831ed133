// A carrier connection's settings are checked before anything is stored, within SMPP 3.4's
// field sizes, with the parameter named; what is left out takes its default.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSmppSettings, SMPP_DEFAULTS } from '../../src/domain/carrier-settings.ts';
import { ApiError } from '../../src/domain/errors.ts';

const GOOD = { host: 'smsc.example.net', systemId: 'ACME01', password: 'secret' };

function refusal(input: Record<string, unknown>): string {
  try {
    parseSmppSettings(input);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return `${error.param}: ${error.message}`;
  }
  assert.fail(`accepted ${JSON.stringify(input)}`);
}

describe('SMPP connection settings', () => {
  test('what is left out takes its default; the password is apart from what may be shown', () => {
    const { settings, secret } = parseSmppSettings(GOOD);
    assert.deepEqual(settings, { host: GOOD.host, systemId: GOOD.systemId, ...SMPP_DEFAULTS });
    assert.deepEqual(secret, { password: 'secret' });
    assert.ok(!JSON.stringify(settings).includes('secret'));
  });

  test('numbers given as text (the CLI’s flags) are read as numbers', () => {
    const { settings } = parseSmppSettings({
      ...GOOD,
      port: '2776',
      window: '20',
      throughput: '50',
    });
    assert.deepEqual([settings.port, settings.window, settings.throughput], [2776, 20, 50]);
  });

  const REFUSED: [string, Record<string, unknown>, RegExp][] = [
    ['a missing host', { ...GOOD, host: undefined }, /^host: host is required/],
    ['a host with a path', { ...GOOD, host: 'smsc/x' }, /^host:/],
    ['a port out of range', { ...GOOD, port: 70000 }, /^port:/],
    ['a port that is no number', { ...GOOD, port: 'x' }, /^port:/],
    [
      'a system_id over 15 characters',
      { ...GOOD, systemId: 'a'.repeat(16) },
      /^systemId:.*SMPP 3\.4/,
    ],
    ['a password over 8 characters', { ...GOOD, password: 'much-too-long' }, /^password:/],
    ['a missing password', { ...GOOD, password: '' }, /^password: password is required/],
    ['a system_type over 12 characters', { ...GOOD, systemType: 'x'.repeat(13) }, /^systemType:/],
    [
      'a password that is not printable ASCII',
      { ...GOOD, password: 'pässwd' },
      /^password:.*ASCII/,
    ],
    ['a window of 0', { ...GOOD, window: 0 }, /^window:/],
    ['a negative throughput', { ...GOOD, throughput: -1 }, /^throughput:/],
    ['long messages neither udh nor payload', { ...GOOD, longMessages: 'both' }, /^longMessages:/],
    ['receipt ids neither dec nor hex', { ...GOOD, receiptIds: 'octal' }, /^receiptIds:/],
    ['a bind mode neither transceiver nor pair', { ...GOOD, bindMode: 'receiver' }, /^bindMode:/],
    ['tls that is not a boolean', { ...GOOD, tls: 'yes' }, /^tls:/],
  ];
  for (const [what, input, says] of REFUSED) {
    test(`refuses ${what}, naming it`, () => {
      assert.match(refusal(input), says);
    });
  }
});
