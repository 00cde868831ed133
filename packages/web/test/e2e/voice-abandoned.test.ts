// An inbound call the caller gives up on before anyone answers: sipp rings the account's signed-in
// softphones through Kamailio, then sends CANCEL. Every device stops ringing; the call is missed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestAccount } from '../../../server/test/support/app.ts';
import { eventsOf } from '../../../server/test/support/messaging.ts';
import { runSipp, type VoiceTestApp } from '../../../server/test/support/voice.ts';
import {
  callEvents,
  registeredPhones,
  startVoiceRig,
  type VoiceRig,
} from '../support/voice-rig.ts';

const GRACE = '+14155550151';

describe('an inbound call abandoned by the caller', () => {
  let rig: VoiceRig;
  let t: VoiceTestApp;
  let acct: TestAccount;
  let pages: Page[];

  before(async () => {
    rig = await startVoiceRig();
    ({ t, acct } = rig);
    await acct.test.post('/v1/contacts', { phone: GRACE, name: 'Grace Hopper' });
    pages = await registeredPhones(rig, ['Ann Answer', 'Bob Bystander']);
  });
  after(() => rig?.close());

  test('a caller who hangs up while every device rings makes call.missed and every device stops ringing', async () => {
    const line = acct.testNumbers[0]!;
    const rang = pages.map((page) =>
      page
        .getByRole('alertdialog', { name: 'Incoming call' })
        .getByText('Grace Hopper')
        .waitFor({ timeout: 10_000 }),
    );
    const started = Date.now();
    const caller = runSipp(t.stack, 'ring-abandoned', {
      keys: {
        aor: `${acct.accountId}.test`,
        from: GRACE,
        to: line,
        token: t.voice.secrets.controlToken,
      },
    });
    await Promise.all(rang);
    // sipp exits 0 only when its CANCEL was taken: 200 to it, then 487 to the INVITE.
    const run = await caller;
    assert.equal(run.code, 0, run.errors || run.output);
    for (const page of pages) {
      await page
        .getByRole('alertdialog', { name: 'Incoming call' })
        .waitFor({ state: 'detached', timeout: 5000 });
    }
    const missed = await callEvents(rig, 'call.missed', 1, 10_000);
    assert.equal(missed.length, 1, 'one call.missed');
    // Well before the ring timeout: the caller's CANCEL ended it, not Kamailio giving up.
    assert.ok(Date.now() - started < 15_000);
    assert.deepEqual(
      [missed[0].data.direction, missed[0].data.status, missed[0].data.duration],
      ['inbound', 'missed', 0],
    );
    assert.deepEqual([missed[0].data.from, missed[0].data.to], [GRACE, line]);
    assert.equal(
      (await eventsOf(t.store.db, acct.accountId, 'test', 'call.completed')).length,
      0,
      'nothing else recorded',
    );
    for (const page of pages) {
      await page.goto('/app/calls');
      await page.getByText('Grace Hopper').first().waitFor({ timeout: 5000 });
    }
  });
});
