// The isolation rule (store/scope.ts), walked: every repository function that takes a Scope
// or an AccountScope is called for each of four owners (two accounts, each in test and live
// mode) over rows that look alike but for their owner, and must see, find or change only
// that owner's. A new scoped read that is not walked here fails the first test.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Mode } from '../../src/domain/modes.ts';
import { listApiKeys } from '../../src/store/repos/api-keys.ts';
import { listCalls } from '../../src/store/repos/calls.ts';
import {
  findCarrierConnection,
  listCarrierConnections,
} from '../../src/store/repos/carrier-connections.ts';
import {
  findContact,
  findNewestContactByPhone,
  listContacts,
  namesByPhone,
} from '../../src/store/repos/contacts.ts';
import {
  deactivateInAllGroups,
  findConversation,
  findDirectConversation,
  findLatestConversationWith,
  listConversations,
} from '../../src/store/repos/conversations.ts';
import { listEvents, pageOfRecoverableEvents } from '../../src/store/repos/events.ts';
import {
  deleteExpiredIdempotencyKey,
  findIdempotencyKey,
} from '../../src/store/repos/idempotency-keys.ts';
import { findMessage } from '../../src/store/repos/messages.ts';
import { listOptOuts, optedOutAmong, removeOptOut } from '../../src/store/repos/opt-outs.ts';
import { listPhoneNumbers } from '../../src/store/repos/phone-numbers.ts';
import { countEnabledOwners, findTeammate, listUsers } from '../../src/store/repos/users.ts';
import {
  findWebhookEndpoint,
  listEnabledWebhookEndpoints,
  listWebhookEndpoints,
} from '../../src/store/repos/webhook-endpoints.ts';
import { accountScoped, scoped, type Scope } from '../../src/store/scope.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';

const REPOS = join(import.meta.dirname, '..', '..', 'src', 'store', 'repos');
const AT = Date.UTC(2030, 0, 1);
const ACCOUNT_PHONE = '+14155550100';
const PEER = '+14155551234';
const KEY = 'same-key';

interface Owner {
  accountId: string;
  mode: Mode;
  /** The owner in ids: `acct_a_test`. */
  tag: string;
  /** A number only this owner has (numbers and opt-outs are told apart by it). */
  phone: string;
}

const OWNERS: Owner[] = ['acct_a', 'acct_b'].flatMap((accountId, a) =>
  (['test', 'live'] as const).map((mode, m) => ({
    accountId,
    mode,
    tag: `${accountId}_${mode}`,
    phone: `+1415555020${a * 2 + m}`,
  })),
);

/** Writes each owner's look-alike rows: the same phones and keys, owner-tagged ids. */
async function seed(store: Store): Promise<void> {
  await store.write(async (tx) => {
    const db = tx.db;
    for (const accountId of ['acct_a', 'acct_b']) {
      await db
        .insertInto('accounts')
        .values({ id: accountId, name: accountId, help_reply: null, created_at: AT })
        .execute();
      await db
        .insertInto('users')
        .values({
          id: `usr_${accountId}`,
          account_id: accountId,
          email: `${accountId}@example.com`,
          name: accountId,
          role: 'owner',
          password_hash: 'x',
          created_at: AT,
        })
        .execute();
      await db
        .insertInto('carrier_connections')
        .values({
          id: `car_${accountId}`,
          account_id: accountId,
          type: 'smpp',
          settings_json: '{}',
          secret_sealed: 'sealed',
          paused: 0,
          created_at: AT,
          updated_at: AT,
          deleted_at: null,
        })
        .execute();
    }
    for (const [i, o] of OWNERS.entries()) {
      const owned = { account_id: o.accountId, mode: o.mode };
      await db
        .insertInto('api_keys')
        .values({
          id: `key_${o.tag}`,
          ...owned,
          key_hash: `hash_${o.tag}`,
          last4: '0000',
          created_at: AT,
          last_used_at: null,
          revoked_at: null,
        })
        .execute();
      await db
        .insertInto('phone_numbers')
        .values({ id: `pn_${o.tag}`, ...owned, phone: o.phone, created_at: AT })
        .execute();
      await db
        .insertInto('contacts')
        .values({
          id: `ct_${o.tag}`,
          ...owned,
          name: `name_${o.tag}`,
          phone: PEER,
          email: null,
          company: null,
          created_at: AT,
          updated_at: null,
        })
        .execute();
      const thread = { ...owned, account_phone: ACCOUNT_PHONE, created_at: AT, unread_count: 0 };
      await db
        .insertInto('conversations')
        .values([
          {
            id: `cv_${o.tag}`,
            ...thread,
            kind: 'direct',
            peer_phone: PEER,
            last_message_at: AT + 10 + i,
          },
          { id: `cvg_${o.tag}`, ...thread, kind: 'group', peer_phone: null, last_message_at: AT },
        ])
        .execute();
      await db
        .insertInto('conversation_participants')
        .values(
          [`cv_${o.tag}`, `cvg_${o.tag}`].map((conversation_id) => ({
            conversation_id,
            phone: PEER,
            active: 1,
            added_at: AT,
          })),
        )
        .execute();
      await db
        .insertInto('messages')
        .values({
          id: `msg_${o.tag}`,
          ...owned,
          conversation_id: `cv_${o.tag}`,
          direction: 'inbound',
          from_phone: PEER,
          to_json: JSON.stringify([ACCOUNT_PHONE]),
          is_group: 0,
          body: 'hello',
          media_json: '[]',
          segments: 1,
          status: 'delivered',
          failure_reason: null,
          sender_name: null,
          contact_id: null,
          auto_reply: 0,
          created_at: AT,
          updated_at: AT,
        })
        .execute();
      await db
        .insertInto('events')
        .values({
          id: `evt_${o.tag}`,
          ...owned,
          type: 'message.received',
          data: '{}',
          created_at: AT,
          endpoint_id: null,
        })
        .execute();
      await insertKey(db, o);
      await db
        .insertInto('opt_outs')
        .values({ ...owned, phone: o.phone, created_at: AT })
        .execute();
      await db
        .insertInto('webhook_endpoints')
        .values({
          id: `we_${o.tag}`,
          ...owned,
          url: 'https://example.com/hook',
          description: null,
          events_json: '["message.received"]',
          enabled: 1,
          disabled_reason: null,
          secret_sealed: 'sealed',
          previous_secret_sealed: null,
          previous_secret_expires_at: null,
          failing_since: null,
          deleted_at: null,
          created_at: AT,
          updated_at: AT,
        })
        .execute();
      await db
        .insertInto('calls')
        .values({
          id: `call_${o.tag}`,
          ...owned,
          from_phone: PEER,
          to_phone: ACCOUNT_PHONE,
          direction: 'inbound',
          status: 'completed',
          started_at: AT,
          duration: 1,
          contact_id: null,
          created_at: AT,
        })
        .execute();
    }
  });
}

async function insertKey(db: Store['db'], o: Owner): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({
      account_id: o.accountId,
      mode: o.mode,
      key: KEY,
      request_hash: 'h',
      status_code: 201,
      response_body: `body_${o.tag}`,
      created_at: AT,
    })
    .execute();
}

/** What a scoped function saw or changed, as owner-tagged strings, and what it must be. */
interface Walk {
  run(scope: Scope, store: Store): Promise<string[]>;
  expect(o: Owner): string[];
}

const ALL = OWNERS.map((o) => o.tag);
const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();
const found = async (lookups: Promise<{ id: string } | undefined>[]) =>
  ids((await Promise.all(lookups)).filter((r): r is { id: string } => r !== undefined));

/** Every function of store/repos that takes a Scope, as `file:function`. */
const WALKS: Record<string, Walk> = {
  'calls:listCalls': {
    run: async (s) => ids(await listCalls(s, 100)),
    expect: (o) => [`call_${o.tag}`],
  },
  'contacts:findContact': {
    run: (s) => found(ALL.map((t) => findContact(s, `ct_${t}`))),
    expect: (o) => [`ct_${o.tag}`],
  },
  'contacts:findNewestContactByPhone': {
    run: (s) => found([findNewestContactByPhone(s, PEER)]),
    expect: (o) => [`ct_${o.tag}`],
  },
  'contacts:listContacts': {
    run: async (s) => ids(await listContacts(s, 100)),
    expect: (o) => [`ct_${o.tag}`],
  },
  'contacts:namesByPhone': {
    run: async (s) => [...(await namesByPhone(s, [PEER])).values()],
    expect: (o) => [`name_${o.tag}`],
  },
  'conversations:findConversation': {
    run: (s) =>
      found(ALL.flatMap((t) => [`cv_${t}`, `cvg_${t}`].map((id) => findConversation(s, id)))),
    expect: (o) => [`cv_${o.tag}`, `cvg_${o.tag}`],
  },
  'conversations:findDirectConversation': {
    run: (s) => found([findDirectConversation(s, ACCOUNT_PHONE, PEER)]),
    expect: (o) => [`cv_${o.tag}`],
  },
  'conversations:findLatestConversationWith': {
    run: (s) => found([findLatestConversationWith(s, ACCOUNT_PHONE, PEER)]),
    expect: (o) => [`cv_${o.tag}`],
  },
  'conversations:listConversations': {
    run: async (s) => ids(await listConversations(s, 100)),
    expect: (o) => [`cv_${o.tag}`, `cvg_${o.tag}`],
  },
  'conversations:deactivateInAllGroups': {
    // What it changed: the groups where the number is no longer active. Restored after.
    async run(s, store) {
      await store.write((tx) => deactivateInAllGroups(scoped(tx.db, s), PEER));
      const changed = await store.db
        .selectFrom('conversation_participants')
        .select('conversation_id as id')
        .where('active', '=', 0)
        .execute();
      await store.write((tx) =>
        tx.db.updateTable('conversation_participants').set({ active: 1 }).execute(),
      );
      return ids(changed);
    },
    expect: (o) => [`cvg_${o.tag}`],
  },
  'events:pageOfRecoverableEvents': {
    run: async (s) =>
      ids(await pageOfRecoverableEvents(s, { types: ['message.received'], since: 0 }, null, 100)),
    expect: (o) => [`evt_${o.tag}`],
  },
  'events:listEvents': {
    run: async (s) => ids(await listEvents(s)),
    expect: (o) => [`evt_${o.tag}`],
  },
  'idempotency-keys:findIdempotencyKey': {
    run: async (s) => {
      const row = await findIdempotencyKey(s, KEY, 0);
      return row ? [row.response_body] : [];
    },
    expect: (o) => [`body_${o.tag}`],
  },
  'idempotency-keys:deleteExpiredIdempotencyKey': {
    // What it removed, told by the records left. Restored after.
    async run(s, store) {
      await store.write((tx) => deleteExpiredIdempotencyKey(scoped(tx.db, s), KEY, AT + 1));
      const left = await store.db.selectFrom('idempotency_keys').select('response_body').execute();
      const kept = new Set(left.map((r) => r.response_body));
      const removed = OWNERS.filter((o) => !kept.has(`body_${o.tag}`));
      await store.write(async (tx) => {
        for (const o of removed) await insertKey(tx.db, o);
      });
      return removed.map((o) => `body_${o.tag}`);
    },
    expect: (o) => [`body_${o.tag}`],
  },
  'messages:findMessage': {
    run: (s) => found(ALL.map((t) => findMessage(s, `msg_${t}`))),
    expect: (o) => [`msg_${o.tag}`],
  },
  'opt-outs:optedOutAmong': {
    run: async (s) =>
      [
        ...(await optedOutAmong(
          s,
          OWNERS.map((o) => o.phone),
        )),
      ].sort(),
    expect: (o) => [o.phone],
  },
  'opt-outs:removeOptOut': {
    // Which of every owner's opted-out numbers it lifted. Restored after.
    async run(s, store) {
      const lifted: string[] = [];
      for (const o of OWNERS) {
        if (await store.write((tx) => removeOptOut(scoped(tx.db, s), o.phone))) {
          lifted.push(o.phone);
        }
      }
      await store.write(async (tx) => {
        for (const phone of lifted) {
          await tx.db
            .insertInto('opt_outs')
            .values({ account_id: s.accountId, mode: s.mode, phone, created_at: AT })
            .execute();
        }
      });
      return lifted;
    },
    expect: (o) => [o.phone],
  },
  'opt-outs:listOptOuts': {
    run: async (s) => (await listOptOuts(s)).map((r) => r.phone),
    expect: (o) => [o.phone],
  },
  'phone-numbers:listPhoneNumbers': {
    run: async (s) => ids(await listPhoneNumbers(s)),
    expect: (o) => [`pn_${o.tag}`],
  },
  'webhook-endpoints:findWebhookEndpoint': {
    run: (s) => found(ALL.map((t) => findWebhookEndpoint(s, `we_${t}`))),
    expect: (o) => [`we_${o.tag}`],
  },
  'webhook-endpoints:listWebhookEndpoints': {
    run: async (s) => ids(await listWebhookEndpoints(s, 100)),
    expect: (o) => [`we_${o.tag}`],
  },
  'webhook-endpoints:listEnabledWebhookEndpoints': {
    run: async (s) => ids(await listEnabledWebhookEndpoints(s)),
    expect: (o) => [`we_${o.tag}`],
  },
  // An account's own records belong to no mode: both of its modes, never another account's.
  'api-keys:listApiKeys': {
    run: async (s) => [
      ...ids(await listApiKeys(accountScoped(s.db, s.accountId))),
      ...ids(await listApiKeys(accountScoped(s.db, s.accountId), s.mode)),
    ],
    expect: (o) => [`key_${o.accountId}_live`, `key_${o.accountId}_test`, `key_${o.tag}`],
  },
  'carrier-connections:findCarrierConnection': {
    run: (s) =>
      found(
        ['acct_a', 'acct_b'].map((a) =>
          findCarrierConnection(accountScoped(s.db, s.accountId), `car_${a}`),
        ),
      ),
    expect: (o) => [`car_${o.accountId}`],
  },
  'carrier-connections:listCarrierConnections': {
    run: async (s) => ids(await listCarrierConnections(accountScoped(s.db, s.accountId))),
    expect: (o) => [`car_${o.accountId}`],
  },
  'users:listUsers': {
    run: async (s) => ids(await listUsers(accountScoped(s.db, s.accountId))),
    expect: (o) => [`usr_${o.accountId}`],
  },
  'users:findTeammate': {
    run: (s) =>
      found(
        ['acct_a', 'acct_b'].map((a) => findTeammate(accountScoped(s.db, s.accountId), `usr_${a}`)),
      ),
    expect: (o) => [`usr_${o.accountId}`],
  },
  'users:countEnabledOwners': {
    // Each account has its one owner: the count is 1, never both accounts' 2.
    run: async (s) => [String(await countEnabledOwners(accountScoped(s.db, s.accountId)))],
    expect: () => ['1'],
  },
};

/** The functions of store/repos whose first parameter is a Scope or an AccountScope. */
function scopedFunctions(): string[] {
  const names: string[] = [];
  for (const file of readdirSync(REPOS).filter((f) => f.endsWith('.ts'))) {
    const source = readFileSync(join(REPOS, file), 'utf8');
    const declared = /export (?:async )?function (\w+)\(\s*\w+: (?:Scope|AccountScope)\b/g;
    for (const match of source.matchAll(declared)) {
      names.push(`${file.replace(/\.ts$/, '')}:${match[1]}`);
    }
  }
  return names.sort();
}

// Compiled, never run: a repository read of account data cannot be called without a scope.
export function unscopedCallsDoNotCompile(store: Store): void {
  // @ts-expect-error a bare connection is not a Scope
  void findContact(store.db, 'ct_acct_a_test');
  // @ts-expect-error an owner without its connection is not a Scope either
  void listContacts({ db: store.db, accountId: 'acct_a', mode: 'test' }, 10);
}

for (const engine of ENGINES) {
  describe(`scope isolation (${engine})`, () => {
    let database: TestDatabase;
    let store: Store;
    before(async () => {
      database = await createTestDatabase(engine);
      store = await openStore(database.options);
      await seed(store);
    });
    after(async () => {
      await store?.close();
      await database?.drop();
    });

    test('every repository function that takes a scope is walked here', () => {
      assert.deepEqual(Object.keys(WALKS).sort(), scopedFunctions());
    });

    for (const [name, walk] of Object.entries(WALKS)) {
      test(`${name} sees only its own account's rows in its own mode`, async () => {
        for (const o of OWNERS) {
          const seen = await walk.run(scoped(store.db, o), store);
          assert.deepEqual(seen.sort(), walk.expect(o).sort(), `as ${o.tag}`);
        }
      });
    }
  });
}
