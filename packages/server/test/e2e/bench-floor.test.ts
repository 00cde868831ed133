// The bench's floor (bench/floor-server.ts) stores what a one-to-one send stores, through the
// store's own functions on the migrated schema: if they change, the floor changes with them
// or fails here, rather than measuring writes the service no longer does.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { startFloor, type Running } from '../../bench/lib/processes.ts';

describe('the bench floor', () => {
  let dataDir: string;
  let floor: Running;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-floor-'));
    floor = await startFloor(dataDir);
  });
  after(async () => {
    await floor.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (body: unknown) =>
    fetch(`${floor.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  test('a send is answered 201 after its message, recipient and conversation are committed', async () => {
    const res = await post({ from: '+15005550100', to: '+14155560007', body: 'Your code is 1' });
    assert.equal(res.status, 201);
    const message = (await res.json()) as { id: string; status: string; to: string };
    assert.equal(message.status, 'queued');
    assert.equal(message.to, '+14155560007');

    const db = new DatabaseSync(join(dataDir, 'switchboard.db'), { readOnly: true });
    try {
      const row = db
        .prepare(
          `SELECT m.body, m.status, r.phone, r.run_at, c.peer_phone, c.last_message_at
             FROM messages m
             JOIN message_recipients r ON r.message_id = m.id
             JOIN conversations c ON c.id = m.conversation_id
            WHERE m.id = ?`,
        )
        .get(message.id) as Record<string, unknown> | undefined;
      assert.ok(row, 'the message is stored with its recipient in its conversation');
      assert.equal(row.body, 'Your code is 1');
      assert.equal(row.phone, '+14155560007');
      assert.equal(row.peer_phone, '+14155560007');
      // Moved up the inbox by this send, and due at the carrier now.
      assert.equal(row.last_message_at, row.run_at);
    } finally {
      db.close();
    }
  });

  test('a send from a number other than the bench load’s is refused with 422', async () => {
    const res = await post({ from: '+15005550199', to: '+14155560007', body: 'x' });
    assert.equal(res.status, 422);
  });
});
