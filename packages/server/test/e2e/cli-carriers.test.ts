// `switchboard carriers add|list|remove` and `numbers add --carrier`: a connection is
// checked before it is stored, its password is sealed at rest and never printed, and a live
// number is routed to a connection of its own account only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { jsonOutput, runCli, type CliResult } from '../support/processes.ts';

const PASSWORD = 'pw4smsc';

function assertExit(result: CliResult, code: number): void {
  assert.equal(result.code, code, `exit ${result.code}\n${result.stdout}\n${result.stderr}`);
}

for (const engine of ENGINES) {
  describe(`switchboard carriers [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let accountId: string;
    let otherAccountId: string;

    const cli = (args: string[]) => runCli([...args, '--json'], env);
    const add = (account: string, extra: string[] = []) =>
      cli([
        'carriers',
        'add',
        '--account',
        account,
        '--type',
        'smpp',
        '--host',
        '127.0.0.1',
        '--port',
        '2775',
        '--system-id',
        'switchboard',
        '--password',
        PASSWORD,
        ...extra,
      ]);

    before(async () => {
      database = await createTestDatabase(engine);
      env = { ...database.env, SWITCHBOARD_LOG_LEVEL: 'silent' };
      // One after the other: the first also makes the database's schema.
      const first = await cli(['accounts', 'create', '--name', 'Carrier account']);
      assertExit(first, 0);
      accountId = jsonOutput(first).id;
      const second = await cli(['accounts', 'create', '--name', 'Other account']);
      assertExit(second, 0);
      otherAccountId = jsonOutput(second).id;
    });
    after(async () => {
      await database.drop();
    });

    test('carriers add prints the connection with its settings and defaults, never its password', async () => {
      const result = await add(accountId, ['--window', '20', '--receipt-ids', 'hex']);
      assertExit(result, 0);
      const connection = jsonOutput(result);
      assert.match(connection.id, /^car_[0-9A-Za-z]+$/);
      assert.deepEqual(
        {
          type: connection.type,
          host: connection.host,
          port: connection.port,
          systemId: connection.systemId,
          window: connection.window,
          throughput: connection.throughput,
          longMessages: connection.longMessages,
          receiptIds: connection.receiptIds,
          bindMode: connection.bindMode,
          tls: connection.tls,
        },
        {
          type: 'smpp',
          host: '127.0.0.1',
          port: 2775,
          systemId: 'switchboard',
          window: 20,
          throughput: 0,
          longMessages: 'udh',
          receiptIds: 'hex',
          bindMode: 'transceiver',
          tls: false,
        },
      );
      assert.ok(!result.stdout.includes(PASSWORD), 'the password is never printed');
      assert.ok(!result.stderr.includes(PASSWORD));
    });

    test('the password is stored sealed, not in clear', async () => {
      const store = await openStore(database.options);
      try {
        const rows = await store.db.selectFrom('carrier_connections').selectAll().execute();
        assert.ok(rows.length > 0);
        for (const row of rows) {
          assert.ok(!JSON.stringify(row).includes(PASSWORD), 'no column holds the password');
        }
      } finally {
        await store.close();
      }
    });

    test('carriers add refuses bad settings with the parameter named, and stores nothing', async () => {
      const before = jsonOutput(await cli(['carriers', 'list', '--account', accountId])).data
        .length;
      // Every rule of the settings is domain/carrier-settings.ts's (its unit test); here, that
      // the CLI answers with the parameter named, and that --port is the SMSC's, not serve's.
      const cases: [string[], string][] = [
        [['--password', 'much-too-long-for-smpp'], 'password'],
        [['--port', '70000'], 'port'],
      ];
      for (const [flags, param] of cases) {
        const result = await add(accountId, flags);
        assertExit(result, 1);
        const { error } = jsonOutput(result);
        assert.equal(error.type, 'validation_error', flags.join(' '));
        assert.match(error.message, new RegExp(`^${param}:`), flags.join(' '));
      }
      const wrongType = await cli([
        'carriers',
        'add',
        '--account',
        accountId,
        '--type',
        'x25',
        '--host',
        'h',
        '--system-id',
        'id',
        '--password',
        'pw',
      ]);
      assert.match(jsonOutput(wrongType).error.message, /^type:/);
      const after = jsonOutput(await cli(['carriers', 'list', '--account', accountId])).data.length;
      assert.equal(after, before);
    });

    test('carriers list shows the account’s connections only, oldest first, with their state', async () => {
      const other = jsonOutput(await add(otherAccountId));
      const listed = jsonOutput(await cli(['carriers', 'list', '--account', accountId]));
      assert.ok(listed.data.length > 0);
      assert.ok(listed.data.every((c: any) => c.accountId === accountId));
      assert.ok(!listed.data.some((c: any) => c.id === other.id));
      const ids = listed.data.map((c: any) => c.id);
      assert.deepEqual(ids, [...ids].sort());
      for (const c of listed.data) {
        assert.ok(['connecting', 'bound', 'failed', 'paused', 'stopped'].includes(c.status));
        assert.equal(c.password, undefined);
      }
    });

    test('numbers add --carrier routes a live number through a connection of its own account only', async () => {
      const mine = jsonOutput(await add(accountId));
      const theirs = jsonOutput(await cli(['carriers', 'list', '--account', otherAccountId]))
        .data[0];
      const routed = await cli([
        'numbers',
        'add',
        '--account',
        accountId,
        '--mode',
        'live',
        '+14155550777',
        '--carrier',
        mine.id,
      ]);
      assertExit(routed, 0);
      assert.equal(jsonOutput(routed).carrierId, mine.id);
      const foreign = await cli([
        'numbers',
        'add',
        '--account',
        accountId,
        '--mode',
        'live',
        '+14155550778',
        '--carrier',
        theirs.id,
      ]);
      assertExit(foreign, 1);
      assert.match(jsonOutput(foreign).error.message, /^carrier:/);
      const testMode = await cli([
        'numbers',
        'add',
        '--account',
        accountId,
        '--mode',
        'test',
        '+14155550150',
        '--carrier',
        mine.id,
      ]);
      assertExit(testMode, 1);
      assert.match(jsonOutput(testMode).error.message, /^carrier: Only live numbers/);
    });

    test('carriers remove takes a connection out of the list; removing it again is not found', async () => {
      const made = jsonOutput(await add(accountId));
      assertExit(await cli(['carriers', 'remove', made.id]), 0);
      const listed = jsonOutput(await cli(['carriers', 'list', '--account', accountId]));
      assert.ok(!listed.data.some((c: any) => c.id === made.id));
      const again = await cli(['carriers', 'remove', made.id]);
      assertExit(again, 1);
      assert.equal(jsonOutput(again).error.type, 'not_found');
    });
  });
}
