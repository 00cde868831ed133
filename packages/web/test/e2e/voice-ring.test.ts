// A sandbox call with `ring: true` rings every signed-in softphone of the account at once through
// Kamailio's parallel forking; the first to answer takes it, the others say so.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import {
  callEvents,
  registeredPhones,
  startVoiceRig,
  type VoiceRig,
} from '../support/voice-rig.ts';

const GRACE = '+14155550151';
/** Kamailio's ring timeout in this suite, short to keep it quick. */
const RING_MS = 6000;

describe('ringing every signed-in softphone', () => {
  let rig: VoiceRig;
  let line: string;
  let pages: Page[];

  before(async () => {
    rig = await startVoiceRig({ ringTimeoutMs: RING_MS });
    line = rig.acct.testNumbers[0]!;
    await rig.acct.test.post('/v1/contacts', { phone: GRACE, name: 'Grace Hopper' });
    pages = await registeredPhones(rig, ['Ann Answer', 'Bob Bystander']);
  });
  after(() => rig?.close());

  test('both devices ring with the caller’s name; the first answer takes the call and the other shows answered elsewhere', async () => {
    const [ann, bob] = pages as [Page, Page];
    const res = await rig.acct.test.post('/v1/sandbox/calls', {
      from: GRACE,
      to: line,
      ring: true,
    });
    assert.equal(res.status, 202, res.text);
    assert.deepEqual(res.body, {
      object: 'sandbox_ring',
      from: GRACE,
      to: line,
      status: 'ringing',
    });
    for (const page of pages) {
      const ringing = page.getByRole('alertdialog', { name: 'Incoming call' });
      await ringing.getByText('Grace Hopper').waitFor({ timeout: 10_000 });
    }
    await ann.getByRole('button', { name: 'Answer', exact: true }).click();
    await bob.getByRole('status').getByText('Answered elsewhere').waitFor({ timeout: 10_000 });
    assert.equal(await bob.getByRole('alertdialog', { name: 'Incoming call' }).count(), 0);
    await ann
      .getByRole('timer')
      .getByText(/^0:0\d$/)
      .waitFor({ timeout: 10_000 });
    const answered = Date.now();
    await sleep(2000);
    await ann.getByRole('button', { name: 'Hang up' }).click();
    const talked = (Date.now() - answered) / 1000;
    const [event] = await callEvents(rig, 'call.completed', 1);
    assert.deepEqual(
      [event!.data.direction, event!.data.status, event!.data.from, event!.data.to],
      ['inbound', 'completed', GRACE, line],
    );
    assert.ok(Math.abs(event!.data.duration - talked) <= 1, `${event!.data.duration} vs ${talked}`);
  });

  test('a call nobody answers stops ringing after the ring timeout and is call.missed', async () => {
    const res = await rig.acct.test.post('/v1/sandbox/calls', {
      from: GRACE,
      to: line,
      ring: true,
    });
    assert.equal(res.status, 202, res.text);
    for (const page of pages) {
      await page.getByRole('alertdialog', { name: 'Incoming call' }).waitFor({ timeout: 10_000 });
    }
    const [event] = await callEvents(rig, 'call.missed', 1);
    assert.deepEqual(
      [event!.data.direction, event!.data.status, event!.data.duration],
      ['inbound', 'missed', 0],
    );
    for (const page of pages) {
      await page
        .getByRole('alertdialog', { name: 'Incoming call' })
        .waitFor({ state: 'detached', timeout: 5000 });
    }
  });

  test('ring to a number that is not the account’s is refused and rings nobody', async () => {
    const res = await rig.acct.test.post('/v1/sandbox/calls', {
      from: GRACE,
      to: '+14155550199',
      ring: true,
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.param, 'to');
    await sleep(1000);
    assert.equal(await pages[0]!.getByRole('alertdialog', { name: 'Incoming call' }).count(), 0);
  });
});
