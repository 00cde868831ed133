// A thread's load racing the realtime channel: what was pushed while the load was in
// flight is not lost to an answer read before it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Message } from '@switchboard/sdk';
import { withPushes } from '../../src/lib/thread-merge.ts';

function message(id: string, status: Message['status'], createdAt: string): Message {
  return {
    id,
    status,
    createdAt,
    conversationId: 'conv_1',
    direction: 'outbound',
    body: id,
  } as Message;
}

const summary = (thread: Message[]) => thread.map((m) => `${m.id}:${m.status}`);

describe('a thread loaded while pushes arrive', () => {
  const loaded = [
    message('msg_a', 'delivered', '2026-11-24T10:00:00.000Z'),
    message('msg_b', 'queued', '2026-11-24T10:00:01.000Z'),
  ];

  test('a status pushed while the thread loaded wins over the copy the answer read before it', () => {
    const pushed = new Map([['msg_b', message('msg_b', 'failed', '2026-11-24T10:00:01.000Z')]]);
    assert.deepEqual(summary(withPushes(loaded, pushed)), ['msg_a:delivered', 'msg_b:failed']);
  });

  test('a message pushed while the thread loaded and missing from the answer is added in order', () => {
    const pushed = new Map([
      ['msg_c', message('msg_c', 'queued', '2026-11-24T10:00:02.000Z')],
      ['msg_0', message('msg_0', 'delivered', '2026-11-24T09:59:59.000Z')],
    ]);
    assert.deepEqual(summary(withPushes(loaded, pushed)), [
      'msg_0:delivered',
      'msg_a:delivered',
      'msg_b:queued',
      'msg_c:queued',
    ]);
  });

  test('without pushes the thread is kept as it was loaded', () => {
    assert.deepEqual(summary(withPushes(loaded, new Map())), ['msg_a:delivered', 'msg_b:queued']);
  });
});
