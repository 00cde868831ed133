// A call whose end is never seen is still recorded: Switchboard keeps each answered call open,
// sees it running in Kamailio's dialogs, and when Kamailio no longer holds it (restarted), or
// nobody has seen it for a while (its Switchboard is gone), records it with the time last known.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { sweepCalls } from '../../src/http/voice-call-sweep.ts';
import type { TestAccount } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { eventsOf } from '../support/messaging.ts';
import { runSipp, signInForVoice, startVoiceApp, type VoiceTestApp } from '../support/voice.ts';

const INTERVAL_MS = 30_000;

for (const engine of ENGINES) {
  describe(`calls whose end is never seen [${engine}]`, () => {
    let t: VoiceTestApp;
    let acct: TestAccount;

    before(async () => {
      t = await startVoiceApp(engine);
      acct = await t.newAccount('Open calls');
    });
    after(() => t.close());

    const openCalls = () => t.store.db.selectFrom('open_calls').selectAll().execute();
    const completed = () => eventsOf(t.store.db, acct.accountId, 'test', 'call.completed');

    async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
      for (let i = 0; i < 100; i++) {
        const value = await check();
        if (value !== undefined) return value;
        await sleep(100);
      }
      assert.fail(`${what}: not within 10 s`);
    }

    test('a call Kamailio lost in a restart is recorded lasting until it was last seen running', async () => {
      const login = await signInForVoice(t, acct);
      const call = runSipp(t.stack, 'call', {
        keys: { from: acct.testNumbers[0]!, to: '+12065550123' },
        username: login.username,
        password: login.password,
        pauseMs: 8000,
        timeoutMs: 15_000,
      });
      const open = await until('the answered call kept open', async () => (await openCalls())[0]);
      await sleep(2000);
      // Seen running in Kamailio's dialogs: its time last known moves on.
      const seen = await sweepCalls(t.voice, t.app.deps.changes, INTERVAL_MS);
      assert.deepEqual(seen.closed, []);
      const [touched] = await openCalls();
      assert.ok(touched!.seen_at >= open.answered_at + 1500, 'seen running');
      // Kamailio restarts (its dialogs are in memory only): the call's end will never come.
      const kamailio = t.stack.programs.find((p) => p.name === 'kamailio')!;
      const old = kamailio.pid()!;
      process.kill(old, 'SIGTERM');
      const http = t.stack.wsUrl.replace(/^ws/, 'http');
      await until('Kamailio restarted', async () => {
        const pid = kamailio.pid();
        if (!pid || pid === old || !kamailio.running()) return undefined;
        return (await fetch(http).catch(() => null)) ? pid : undefined;
      });
      const before = (await completed()).length;
      const swept = await sweepCalls(t.voice, t.app.deps.changes, INTERVAL_MS);
      assert.equal(swept.closed.length, 1);
      const event = (await completed())[before]!;
      assert.equal(event.data.to, '+12065550123');
      assert.ok(Math.abs(event.data.duration - 2) <= 1, `duration ${event.data.duration}`);
      assert.deepEqual(await openCalls(), []);
      await call;
    });

    test('a call nobody has seen for two intervals (its run is gone) is recorded, never lost', async () => {
      const now = Date.now();
      await t.store.write((tx) =>
        tx.db
          .insertInto('open_calls')
          .values({
            call_id: 'gone-run-call',
            run_id: 'a-run-that-ended',
            account_id: acct.accountId,
            mode: 'test',
            from_phone: '+12065550199',
            to_phone: acct.testNumbers[1]!,
            direction: 'inbound',
            answered_at: now - 3 * INTERVAL_MS - 45_000,
            seen_at: now - 3 * INTERVAL_MS,
          })
          .execute(),
      );
      const before = (await completed()).length;
      const swept = await sweepCalls(t.voice, t.app.deps.changes, INTERVAL_MS);
      assert.equal(swept.closed.length, 1);
      const event = (await completed())[before]!;
      assert.deepEqual(
        [event.data.direction, event.data.from, event.data.duration],
        ['inbound', '+12065550199', 45],
      );
    });

    test('a call held by another instance still announced is left to it; once that instance is silent it is recorded', async () => {
      const now = Date.now();
      const announce = (seenAt: number) =>
        t.store.write((tx) =>
          tx.db
            .insertInto('voice_instances')
            .values({ run_id: 'another-run', sip_address: '127.0.0.1:9', seen_at: seenAt })
            .onConflict((oc) => oc.column('run_id').doUpdateSet({ seen_at: seenAt }))
            .execute(),
        );
      await announce(now);
      await t.store.write((tx) =>
        tx.db
          .insertInto('open_calls')
          .values({
            call_id: 'another-run-call',
            run_id: 'another-run',
            account_id: acct.accountId,
            mode: 'test',
            from_phone: '+12065550177',
            to_phone: acct.testNumbers[1]!,
            direction: 'inbound',
            answered_at: now - 3 * INTERVAL_MS - 20_000,
            seen_at: now - 3 * INTERVAL_MS,
          })
          .execute(),
      );
      const kept = await sweepCalls(t.voice, t.app.deps.changes, INTERVAL_MS);
      assert.deepEqual(kept.closed, []);
      assert.equal((await openCalls()).length, 1);
      await announce(now - 31_000);
      const swept = await sweepCalls(t.voice, t.app.deps.changes, INTERVAL_MS);
      assert.deepEqual(
        swept.closed.map((call) => [call.from, call.duration]),
        [['+12065550177', 20]],
      );
      assert.deepEqual(await openCalls(), []);
    });
  });
}
