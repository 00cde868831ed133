import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { startSecondInstance, type Instance } from '../support/second-instance.ts';
import { openChannel, signedInTeammate, type Teammate } from '../support/team.ts';

// Teammates connected to different instances of one PostgreSQL database still see each
// other typing: the notice travels between instances as a store signal (LISTEN/NOTIFY).
const enabled = ENGINES.includes('postgres');

let a: TestApp;
let b: Instance;
let acct: TestAccount;
let ann: Teammate;
let bob: Teammate;

before(async () => {
  if (!enabled) return;
  a = await startTestApp('postgres');
  b = await startSecondInstance(a, { roles: ['api', 'realtime'] });
  acct = await a.newAccount('Acme');
  ann = await signedInTeammate(a, acct, 'Ann Lee');
  bob = await signedInTeammate(a, acct, 'Bob Stone');
});

after(async () => {
  if (!enabled) return;
  await b.close();
  await a.close();
});

test(
  'a typing notice reaches a teammate connected to another instance, and never its typist',
  { skip: !enabled },
  async () => {
    const res = await acct.test.post('/v1/sandbox/inbound', {
      to: acct.testNumbers[0],
      from: '+12125550199',
      body: 'Hello?',
    });
    assert.equal(res.status, 201, res.text);
    const id = (res.body as { conversationId: string }).conversationId;
    const annOnA = await openChannel(a, ann);
    const bobOnB = await openChannel(b, bob);
    const other = await signedInTeammate(a, await a.newAccount('Other'), 'Stranger');
    const strangerOnB = await openChannel(b, other);
    try {
      annOnA.socket.send(JSON.stringify({ type: 'typing', conversationId: id }));
      assert.deepEqual(await bobOnB.next((p) => p.type === 'typing'), {
        type: 'typing',
        conversationId: id,
        user: { id: ann.id, name: 'Ann Lee' },
      });
      bobOnB.socket.send(JSON.stringify({ type: 'typing', conversationId: id }));
      assert.deepEqual(await annOnA.next((p) => p.type === 'typing'), {
        type: 'typing',
        conversationId: id,
        user: { id: bob.id, name: 'Bob Stone' },
      });
      await sleep(300);
      assert.equal(annOnA.pushes.filter((p) => p.type === 'typing').length, 1, 'not echoed');
      assert.equal(bobOnB.pushes.filter((p) => p.type === 'typing').length, 1, 'not echoed');
      assert.ok(
        !strangerOnB.pushes.some((p) => p.type === 'typing'),
        'another account never hears it',
      );
    } finally {
      annOnA.close();
      bobOnB.close();
      strangerOnB.close();
    }
  },
);
