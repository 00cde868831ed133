// The voice keeper's secrets are derived, never stored: the same secret key and keeper id give
// them again to the next serve, and anything else gives other ones.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { keeperSecrets, voiceRunId } from '../../src/voice/ephemeral-credentials.ts';
import { keeperFiles } from '../../src/voice/keeper-protocol.ts';

const key = randomBytes(32);

test('the same secret key and keeper id give the same secrets (a restarted serve has them again)', () => {
  assert.deepEqual(keeperSecrets(key, 'k1'), keeperSecrets(Buffer.from(key), 'k1'));
});

test('another keeper id or another secret key gives other secrets, and another run id', () => {
  const mine = keeperSecrets(key, 'k1');
  for (const other of [keeperSecrets(key, 'k2'), keeperSecrets(randomBytes(32), 'k1')]) {
    assert.notEqual(other.controlToken, mine.controlToken);
    assert.notEqual(other.credentialSecret, mine.credentialSecret);
    assert.notEqual(voiceRunId(other), voiceRunId(mine));
  }
  assert.notEqual(mine.controlToken, mine.credentialSecret, 'one secret per purpose');
});

test("the keeper's socket is in the data directory, or named for it where that path is too long", () => {
  assert.equal(keeperFiles('/srv/data').socket, '/srv/data/voice-keeper.sock');
  const long = `/srv/${'d'.repeat(120)}`;
  const socket = keeperFiles(long).socket;
  assert.ok(Buffer.byteLength(socket) < 108 && !socket.startsWith(long), socket);
  assert.notEqual(socket, keeperFiles(`${long}x`).socket);
});
