import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listEvents } from '../../src/store/repos/events.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';
import { scoped } from '../../src/store/scope.ts';

for (const engine of ENGINES) {
  describe(`contacts API [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount();
    });
    after(() => t.close());

    test('POST /v1/contacts creates a contact with a ct_ id and a UTC createdAt', async () => {
      const res = await acct.test.post('/v1/contacts', {
        phone: '+14155550123',
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        company: 'Analytical Engines',
      });
      assert.equal(res.status, 201);
      assert.match(res.body.id, /^ct_[0-9A-Za-z]{22}$/);
      assert.equal(res.body.object, 'contact');
      assert.equal(res.body.name, 'Ada Lovelace');
      assert.equal(res.body.phone, '+14155550123');
      assert.equal(res.body.email, 'ada@example.com');
      assert.equal(res.body.company, 'Analytical Engines');
      assert.match(res.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    test('only phone is required; absent optional fields are null', async () => {
      const res = await acct.test.post('/v1/contacts', { phone: '+447911123456' });
      assert.equal(res.status, 201);
      assert.equal(res.body.name, null);
      assert.equal(res.body.email, null);
      assert.equal(res.body.company, null);
    });

    test('GET /v1/contacts/{id} returns the contact as it was created', async () => {
      const created = await acct.test.post('/v1/contacts', { phone: '+14155550124', name: 'Bo' });
      const fetched = await acct.test.get(`/v1/contacts/${created.body.id}`);
      assert.equal(fetched.status, 200);
      assert.deepEqual(fetched.body, created.body);
    });

    test('creating a contact records exactly one contact.created event with the contact as data', async () => {
      const created = await acct.test.post('/v1/contacts', { phone: '+14155550125', name: 'Cy' });
      const events = await listEvents(
        scoped(t.store.db, { accountId: acct.accountId, mode: 'test' }),
        'contact.created',
      );
      const mine = events.filter((e) => JSON.parse(e.data).id === created.body.id);
      assert.equal(mine.length, 1);
      assert.match(mine[0]!.id, /^evt_/);
      assert.deepEqual(JSON.parse(mine[0]!.data), created.body);
    });

    test('a missing phone is 422 validation_error with param phone', async () => {
      const res = await acct.test.post('/v1/contacts', { name: 'No Phone' });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.type, 'validation_error');
      assert.equal(res.body.error.param, 'phone');
    });

    test('a non-E.164 phone is 422 validation_error with param phone and stores nothing', async () => {
      for (const phone of [
        '4155550123',
        '+1 415 555 0123',
        '+1415',
        '+0123456789',
        'tel:+14155550123',
      ]) {
        const before = await listEvents(
          scoped(t.store.db, { accountId: acct.accountId, mode: 'test' }),
        );
        const res = await acct.test.post('/v1/contacts', { phone });
        assert.equal(res.status, 422, phone);
        assert.equal(res.body.error.type, 'validation_error');
        assert.equal(res.body.error.param, 'phone');
        const afterEvents = await listEvents(
          scoped(t.store.db, { accountId: acct.accountId, mode: 'test' }),
        );
        assert.equal(afterEvents.length, before.length, 'no event for a rejected contact');
      }
    });

    test('an invalid email is 422 validation_error with param email, saying what it must be', async () => {
      for (const email of ['not-an-email', 'a@b', 'a b@example.com']) {
        const res = await acct.test.post('/v1/contacts', { phone: '+14155550126', email });
        assert.equal(res.status, 422, email);
        assert.equal(res.body.error.type, 'validation_error');
        assert.equal(res.body.error.param, 'email');
        assert.equal(res.body.error.message, 'email must be an email address.');
      }
    });

    test('an unknown body field is 422 naming the field', async () => {
      const res = await acct.test.post('/v1/contacts', { phone: '+14155550127', nickname: 'x' });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.type, 'validation_error');
      assert.equal(res.body.error.param, 'nickname');
    });

    test('a field of the wrong type is 422 naming the field, never coerced', async () => {
      const res = await acct.test.post('/v1/contacts', { phone: 14155550127 });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.param, 'phone');
    });

    test('an unknown contact id is 404 not_found', async () => {
      const res = await acct.test.get('/v1/contacts/ct_doesnotexist');
      assert.equal(res.status, 404);
      assert.equal(res.body.error.type, 'not_found');
    });

    test("another account's contact is 404", async () => {
      const other = await t.newAccount('Other');
      const theirs = await other.test.post('/v1/contacts', { phone: '+14155550128' });
      const res = await acct.test.get(`/v1/contacts/${theirs.body.id}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.type, 'not_found');
    });

    test('a test-mode contact is 404 to the live key of the same account, and the other way round', async () => {
      const testContact = await acct.test.post('/v1/contacts', { phone: '+14155550129' });
      const liveContact = await acct.live.post('/v1/contacts', { phone: '+14155550129' });
      assert.equal(liveContact.status, 201);
      assert.equal((await acct.live.get(`/v1/contacts/${testContact.body.id}`)).status, 404);
      assert.equal((await acct.test.get(`/v1/contacts/${liveContact.body.id}`)).status, 404);
      assert.equal((await acct.live.get(`/v1/contacts/${liveContact.body.id}`)).status, 200);
    });
  });
}
