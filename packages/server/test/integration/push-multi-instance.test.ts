import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { phoneNumbers } from '../support/messaging.ts';
import { startPushService, type PushService } from '../support/push-service.ts';
import { startSecondInstance, type Instance } from '../support/second-instance.ts';
import { signedInTeammate, type Teammate } from '../support/team.ts';

// Two instances of the worker role share one PostgreSQL database: each hears every
// notifiable change (its own, and the other's through LISTEN/NOTIFY), and a device must
// still get exactly one push for each. (SQLite is one process by design.)
const enabled = ENGINES.includes('postgres');
/** Long enough for the instance that lost a claim to have pushed, had it not. */
const SETTLE_MS = 600;

let a: TestApp;
let b: Instance;
let push: PushService;
let acct: TestAccount;
let ann: Teammate;
let bob: Teammate;
const phone = phoneNumbers('917');

before(async () => {
  if (!enabled) return;
  push = await startPushService();
  a = await startTestApp('postgres', {
    pushCa: push.ca,
    env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
  });
  b = await startSecondInstance(a, { roles: ['api', 'realtime', 'worker'], pushCa: push.ca });
  acct = await a.newAccount('Acme');
  ann = await signedInTeammate(a, acct, 'Ann Lee');
  bob = await signedInTeammate(a, acct, 'Bob Stone');
});

after(async () => {
  if (!enabled) return;
  await b.close();
  await a.close();
  await push.close();
});

async function inbound(body: string, from = phone()): Promise<string> {
  const res = await acct.test.post('/v1/sandbox/inbound', { to: acct.testNumbers[0], from, body });
  assert.equal(res.status, 201, res.text);
  return (res.body as { conversationId: string }).conversationId;
}

/** A call to the softphone's API of instance `url` as `mate`. */
async function on(url: string, mate: Teammate, path: string, body: unknown, status = 200) {
  const res = await fetch(`${url}/app/api${path}`, {
    method: 'POST',
    headers: { cookie: mate.cookie, 'x-csrf-token': mate.csrf, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, status, await res.clone().text());
  return res.json() as Promise<any>;
}

test(
  'each text, assignment and mention is pushed once to each device however many instances push',
  { skip: !enabled },
  async () => {
    await ann.json('GET', '/push/key');
    const annPhone = push.subscriber();
    const annLaptop = push.subscriber();
    const bobPhone = push.subscriber();
    await ann.json('POST', '/push/subscriptions', annPhone.subscription, 201);
    // Subscribed through the other instance: both hear of subscriptions either way.
    await on(b.url, ann, '/push/subscriptions', annLaptop.subscription, 201);
    await bob.json('POST', '/push/subscriptions', bobPhone.subscription, 201);
    // Both instances listen for changes once they hear of a subscription.
    await sleep(300);

    const id = await inbound('Is the shop open on Sunday?');
    await push.waitFor(annPhone.path, 1);
    await push.waitFor(annLaptop.path, 1);
    await push.waitFor(bobPhone.path, 1);
    // Made on the second instance: the first hears it through NOTIFY.
    await on(b.url, ann, `/conversations/${id}/assignee`, { assigneeId: bob.id });
    await on(b.url, ann, `/conversations/${id}/notes`, { body: 'over to you @Bob' }, 201);
    await push.waitFor(bobPhone.path, 3);
    await sleep(SETTLE_MS);

    assert.deepEqual(
      push.at(annPhone.path).map((r) => annPhone.read(r).body),
      ['Is the shop open on Sunday?'],
    );
    assert.equal(push.at(annLaptop.path).length, 1);
    assert.deepEqual(
      push.at(bobPhone.path).map((r) => bobPhone.read(r).title),
      [
        (await ann.json('GET', `/conversations/${id}`)).conversation.participants[0].phone,
        'Ann Lee assigned you a conversation',
        'Ann Lee mentioned you',
      ],
    );
  },
);

test(
  'assigning the same teammate again later is a new push, not a repeat of the first',
  { skip: !enabled },
  async () => {
    const bobTablet = push.subscriber();
    await bob.json('POST', '/push/subscriptions', bobTablet.subscription, 201);
    const id = await inbound('Who has this?');
    await push.waitFor(bobTablet.path, 1);
    await ann.json('POST', `/conversations/${id}/assignee`, { assigneeId: bob.id });
    await push.waitFor(bobTablet.path, 2);
    await ann.json('POST', `/conversations/${id}/assignee`, { assigneeId: null });
    await on(b.url, ann, `/conversations/${id}/assignee`, { assigneeId: bob.id });
    await push.waitFor(bobTablet.path, 3);
    await sleep(SETTLE_MS);
    assert.deepEqual(
      push
        .at(bobTablet.path)
        .map((r) => bobTablet.read(r).title)
        .slice(1),
      ['Ann Lee assigned you a conversation', 'Ann Lee assigned you a conversation'],
    );
  },
);
