// One instance holds each carrier connection's bind at a time (a lease in carrier_binds), and
// another takes it over once the holder lets go or its lease runs out.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { CarrierHandlers } from '../../src/carriers/carrier.ts';
import { LiveCarrier } from '../../src/carriers/live/live-carrier.ts';
import { smppAdapter } from '../../src/carriers/smpp/smpp-carrier.ts';
import { addCarrier } from '../../src/commands/add-carrier.ts';
import { createAccount } from '../../src/commands/create-account.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createSecretBox } from '../../src/lib/secret-box.ts';
import {
  leaseCarrierBind,
  releaseCarrierBind,
  reportCarrierBind,
} from '../../src/store/repos/carrier-connections.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { waitFor } from '../support/messaging.ts';
import { freePort } from '../support/processes.ts';
import { startPerlSmsc, type SmscPeer } from '../support/smsc-peer.ts';

const clock = { now: () => Date.now() };
const secrets = createSecretBox(randomBytes(32));
const quiet: CarrierHandlers = {
  receipts: async (receipts) => receipts.map(() => 'ignored' as const),
  inbound: async () => {},
  inboundPart: async () => {},
};

for (const engine of ENGINES) {
  describe(`carrier bind leases (${engine})`, () => {
    let database: TestDatabase;
    let stores: Store[];
    let peer: SmscPeer;
    let connectionId: string;

    before(async () => {
      database = await createTestDatabase(engine);
      stores = [await openStore(database.options), await openStore(database.options)];
      peer = await startPerlSmsc({ port: await freePort() });
      const deps = { clock, seal: (s: string) => secrets.seal(s) };
      const account = await stores[0]!.write((tx) => createAccount(tx, { name: 'Leases' }, deps));
      const connection = await stores[0]!.write((tx) =>
        addCarrier(
          tx,
          account.id,
          {
            type: 'smpp',
            host: '127.0.0.1',
            port: peer.port,
            systemId: 'test',
            password: 'secret',
          },
          deps,
        ),
      );
      connectionId = connection.id;
    });
    after(async () => {
      await peer?.stop();
      for (const store of stores ?? []) await store.close();
      await database?.drop();
    });

    test('a lease goes to one holder until it lets go or its time runs out', async () => {
      const db = stores[0]!.db;
      const id = 'car_lease_rules';
      const account = await db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
      await stores[0]!.write((tx) =>
        tx.db
          .insertInto('carrier_connections')
          .values({
            id,
            account_id: account.id,
            type: 'smpp',
            settings_json: '{}',
            secret_sealed: 'x',
            paused: 1,
            created_at: 0,
            updated_at: 0,
            deleted_at: null,
          })
          .execute(),
      );
      const lease = (holder: string, now: number) =>
        stores[0]!.write((tx) => leaseCarrierBind(tx.db, id, holder, now, now + 1000));
      assert.equal(await lease('a', 0), true, 'free: taken');
      assert.equal(await lease('b', 500), false, 'held by another');
      assert.equal(await lease('a', 900), true, 'renewed by its holder');
      assert.equal(await lease('b', 1500), false, 'the renewal holds until 1900');
      await stores[0]!.write((tx) =>
        reportCarrierBind(tx.db, id, 'b', {
          status: 'bound',
          last_error: null,
          stats_json: '{}',
          updated_at: 1,
        }),
      );
      const row = await db
        .selectFrom('carrier_binds')
        .selectAll()
        .where('connection_id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(row.holder, 'a');
      assert.notEqual(row.updated_at, 1, 'one who does not hold it reports nothing');
      assert.equal(await lease('b', 1900), true, 'run out: taken over');
      await stores[0]!.write((tx) => releaseCarrierBind(tx.db, id, 'a', 'stopped', 2000));
      assert.equal(
        (
          await db
            .selectFrom('carrier_binds')
            .select('holder')
            .where('connection_id', '=', id)
            .executeTakeFirstOrThrow()
        ).holder,
        'b',
        'a former holder cannot release it',
      );
    });

    test('two instances: exactly one binds; when it stops, the other binds within seconds', async () => {
      const instances = stores.map(
        (store) =>
          new LiveCarrier({
            store,
            clock,
            secrets,
            logger: createLogger('silent'),
            factories: { smpp: smppAdapter },
            leaseMs: 1500,
            renewMs: 200,
          }),
      );
      const binds = () => peer.received('bind_transceiver').length;
      const before = binds();
      const holderNow = async () =>
        (
          await stores[0]!.db
            .selectFrom('carrier_binds')
            .select('holder')
            .where('connection_id', '=', connectionId)
            .executeTakeFirst()
        )?.holder ?? null;
      try {
        // The first instance binds; the second starts while it holds the lease.
        await instances[0]!.start(quiet);
        await waitFor(async () => (binds() > before ? true : undefined), 'a bind', {
          timeoutMs: 5_000,
        });
        const first = await holderNow();
        assert.ok(first);
        await instances[1]!.start(quiet);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        assert.equal(binds(), before + 1, 'one bind between the two instances');
        assert.equal(await holderNow(), first);
        // The holder stops (and lets go); the other binds at its next renewal.
        await instances[0]!.stop();
        await waitFor(
          async () => {
            const now = await holderNow();
            return now && now !== first ? true : undefined;
          },
          'the other instance holding it',
          { timeoutMs: 5_000, intervalMs: 50 },
        );
        await waitFor(async () => (binds() > before + 1 ? true : undefined), 'a second bind', {
          timeoutMs: 5_000,
        });
      } finally {
        await Promise.all(instances.map((i) => i.stop()));
      }
    });
  });
}
