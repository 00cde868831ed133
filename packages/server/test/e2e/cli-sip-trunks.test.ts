// `switchboard carriers add --type sip` and `numbers add --voice-carrier`: a SIP trunk is a
// carrier connection whose digest login is sealed at rest and never printed, and a live
// number's calls go through a trunk of its own account only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../src/store/store.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../support/engines.ts';
import { jsonOutput, runCli, type CliResult } from '../support/processes.ts';

const USERNAME = 'trunk-login-4471';
const PASSWORD = 'trunk-pass-9903';

function assertExit(result: CliResult, code: number): void {
  assert.equal(result.code, code, `exit ${result.code}\n${result.stdout}\n${result.stderr}`);
}

for (const engine of ENGINES) {
  describe(`switchboard SIP trunks [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let accountId: string;

    const cli = (args: string[]) => runCli([...args, '--json'], env);
    const addTrunk = (extra: string[]) =>
      cli(['carriers', 'add', '--account', accountId, '--type', 'sip', ...extra]);
    const addLive = (phone: string, extra: string[]) =>
      cli(['numbers', 'add', '--account', accountId, '--mode', 'live', phone, ...extra]);

    before(async () => {
      database = await createTestDatabase(engine);
      env = { ...database.env, SWITCHBOARD_LOG_LEVEL: 'silent' };
      const made = await cli(['accounts', 'create', '--name', 'Trunk account']);
      assertExit(made, 0);
      accountId = jsonOutput(made).id;
    });
    after(async () => {
      await database.drop();
    });

    test('carriers add --type sip prints the trunk with its defaults, never its login', async () => {
      const bare = await addTrunk(['--host', 'sip.carrier.example']);
      assertExit(bare, 0);
      const trunk = jsonOutput(bare);
      assert.match(trunk.id, /^car_/);
      assert.deepEqual(
        [trunk.type, trunk.host, trunk.port, trunk.transport, trunk.authenticated],
        ['sip', 'sip.carrier.example', 5060, 'udp', false],
      );
      const withLogin = await addTrunk([
        '--host',
        '203.0.113.5',
        '--port',
        '5080',
        '--transport',
        'tcp',
        '--username',
        USERNAME,
        '--password',
        PASSWORD,
      ]);
      assertExit(withLogin, 0);
      const authed = jsonOutput(withLogin);
      assert.deepEqual([authed.port, authed.transport, authed.authenticated], [5080, 'tcp', true]);
      for (const text of [withLogin.stdout, withLogin.stderr]) {
        assert.ok(
          !text.includes(USERNAME) && !text.includes(PASSWORD),
          'the login is never printed',
        );
      }
      const overTls = await addTrunk(['--host', 'sip.carrier.example', '--transport', 'tls']);
      assertExit(overTls, 0);
      assert.deepEqual([jsonOutput(overTls).port, jsonOutput(overTls).transport], [5061, 'tls']);
      const listed = await cli(['carriers', 'list', '--account', accountId]);
      assert.ok(!listed.stdout.includes(PASSWORD) && !listed.stdout.includes(USERNAME));
    });

    test("the trunk's login is stored sealed, not in clear", async () => {
      const store = await openStore(database.options);
      try {
        const rows = await store.db.selectFrom('carrier_connections').selectAll().execute();
        assert.ok(rows.some((row) => row.type === 'sip'));
        for (const row of rows) {
          const text = JSON.stringify(row);
          assert.ok(!text.includes(PASSWORD) && !text.includes(USERNAME));
        }
      } finally {
        await store.close();
      }
    });

    test('carriers add --type sip refuses bad settings with the parameter named, storing nothing', async () => {
      const count = async () =>
        jsonOutput(await cli(['carriers', 'list', '--account', accountId])).data.length;
      const before = await count();
      const cases: [string[], string][] = [
        [[], 'host'],
        [['--host', 'bad host'], 'host'],
        [['--host', 'h.example', '--transport', 'sctp'], 'transport'],
        [['--host', 'h.example', '--port', '0'], 'port'],
        [['--host', 'h.example', '--username', 'only-a-user'], 'password'],
        [['--host', 'h.example', '--username', 'u', '--password', 'has"quote'], 'password'],
      ];
      for (const [flags, param] of cases) {
        const result = await addTrunk(flags);
        assertExit(result, 1);
        const { error } = jsonOutput(result);
        assert.equal(error.type, 'validation_error', flags.join(' '));
        assert.match(error.message, new RegExp(`^${param}:`), flags.join(' '));
      }
      assert.equal(await count(), before);
    });

    test('numbers add --voice-carrier routes a live number’s calls through a SIP trunk of its account only', async () => {
      const trunk = jsonOutput(await addTrunk(['--host', '127.0.0.1']));
      const routed = await addLive('+14155550901', ['--voice-carrier', trunk.id]);
      assertExit(routed, 0);
      assert.deepEqual(
        [jsonOutput(routed).voiceCarrierId, jsonOutput(routed).carrierId],
        [trunk.id, null],
      );
      const smsc = await cli([
        'carriers',
        'add',
        '--account',
        accountId,
        '--type',
        'smpp',
        '--host',
        '127.0.0.1',
        '--system-id',
        'sb',
        '--password',
        'pw',
      ]);
      const smscId = jsonOutput(smsc).id;
      const smscForCalls = await addLive('+14155550902', ['--voice-carrier', smscId]);
      assertExit(smscForCalls, 1);
      assert.match(jsonOutput(smscForCalls).error.message, /^voice_carrier:/);
      const trunkForTexts = await addLive('+14155550903', ['--carrier', trunk.id]);
      assertExit(trunkForTexts, 1);
      assert.match(jsonOutput(trunkForTexts).error.message, /^carrier:/);
      const made = await cli(['accounts', 'create', '--name', 'Elsewhere']);
      const foreign = await cli([
        'numbers',
        'add',
        '--account',
        jsonOutput(made).id,
        '--mode',
        'live',
        '+14155550904',
        '--voice-carrier',
        trunk.id,
      ]);
      assertExit(foreign, 1);
      assert.match(jsonOutput(foreign).error.message, /^voice_carrier:/);
      const testMode = await cli([
        'numbers',
        'add',
        '--account',
        accountId,
        '--mode',
        'test',
        '+14155550151',
        '--voice-carrier',
        trunk.id,
      ]);
      assertExit(testMode, 1);
      assert.match(jsonOutput(testMode).error.message, /^voice_carrier: Only live numbers/);
    });
  });
}
