// The dependency rule of docs/architecture.md is enforced, not hoped for: the repository's own
// ESLint configuration is given, at a path inside each layer, one import the wrong way, which
// it must refuse with that layer's message, and the matching import the right way, which passes.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { before, describe, test } from 'node:test';
import { ESLint } from 'eslint';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');

/** The code of a file that uses one value of `path`. */
const uses = (path: string) => `import { probe } from '${path}';\nexport const used = probe;\n`;
/** The code of a file that uses one type of `path`. */
const usesType = (path: string) =>
  `import type { Probe } from '${path}';\nexport type Used = Probe;\n`;
/** The code of a file that loads `path` when called. */
const loads = (path: string) => `export const load = () => import('${path}');\n`;

// Each layer's message, or enough of it to tell it from the others'.
const DOMAIN = 'domain/ holds pure rules';
const LIB = 'lib/ (ids, clock, logger, secrets) is used by every layer and imports none';
const STORE = 'store/ is a port used by commands';
const PRESENTERS = 'presenters/ turn store rows (their types only)';
const COMMANDS = 'commands/ use domain, store, presenters, lib, queries and the Carrier port';
const QUERIES = 'queries/ read: domain, store, presenters and lib';
const TRANSPORT = 'Transports read through queries/ and change through commands/';
const CARRIERS = 'carriers/ use domain, store and lib';
const WORKERS = 'workers/ run carriers, commands and the webhook worker';
const SDK = 'The SDK stands alone';
const ENGINE = 'No engine-name branch outside store/engine/';
const WEB = 'The softphone imports its own code, the SDK package and its libraries';

interface Rule {
  /** What the rule says: the test's name. */
  name: string;
  /** A file inside the layer, from the repository's root (its folder exists, it need not). */
  file: string;
  wrong: string;
  right: string;
  /** The layer's message, which the wrong way is refused with. */
  says: string;
}

const DOMAIN_FILE = 'packages/server/src/domain/probe.ts';
const LIB_FILE = 'packages/server/src/lib/probe.ts';
const PRESENTER_FILE = 'packages/server/src/presenters/probe.ts';
const COMMAND_FILE = 'packages/server/src/commands/webhooks/probe.ts';
const CARRIER_FILE = 'packages/server/src/carriers/sandbox/probe.ts';
const WORKER_FILE = 'packages/server/src/workers/probe.ts';
const SDK_FILE = 'packages/sdk/src/resources/probe.ts';
const WEB_FILE = 'packages/web/src/features/inbox/Probe.tsx';

const RULES: Rule[] = [
  {
    name: 'domain/ uses no database library (kysely), only pure ones',
    file: DOMAIN_FILE,
    wrong: uses('kysely'),
    right: uses('libphonenumber-js'),
    says: DOMAIN,
  },
  {
    name: 'domain/ imports nothing of the store, only its own rules',
    file: DOMAIN_FILE,
    wrong: uses('../store/store.ts'),
    right: uses('./errors.ts'),
    says: DOMAIN,
  },
  {
    name: 'domain/ uses no Node module (node:fs), only the SDK’s pure ones',
    file: DOMAIN_FILE,
    wrong: uses('node:fs'),
    right: uses('@switchboard/sdk/segments'),
    says: DOMAIN,
  },
  {
    name: 'domain/ uses no Node module named without its prefix (fs/promises)',
    file: DOMAIN_FILE,
    wrong: uses('fs/promises'),
    right: uses('./phone.ts'),
    says: DOMAIN,
  },
  {
    name: 'domain/ takes types from lib/ (a Clock), never its code',
    file: DOMAIN_FILE,
    wrong: uses('../lib/ids.ts'),
    right: usesType('../lib/clock.ts'),
    says: DOMAIN,
  },
  {
    name: 'domain/ loads nothing of the store lazily either',
    file: DOMAIN_FILE,
    wrong: loads('../store/store.ts'),
    right: loads('./errors.ts'),
    says: DOMAIN,
  },
  {
    name: 'lib/ imports no layer (commands/), only its own modules',
    file: LIB_FILE,
    wrong: uses('../commands/send-message.ts'),
    right: uses('./clock.ts'),
    says: LIB,
  },
  {
    name: 'lib/ imports no top-level module (config.ts), only packages',
    file: LIB_FILE,
    wrong: usesType('../config.ts'),
    right: uses('node:crypto'),
    says: LIB,
  },
  {
    name: 'store/ imports no command, only domain/',
    file: 'packages/server/src/store/repos/probe.ts',
    wrong: uses('../../commands/send-message.ts'),
    right: uses('../../domain/modes.ts'),
    says: STORE,
  },
  {
    name: 'a repository asks what the engine can do (capabilitiesOf), never which it is (engineOf)',
    file: 'packages/server/src/store/repos/probe.ts',
    wrong: "import { engineOf } from '../engine/capabilities.ts';\nexport const used = engineOf;\n",
    right:
      "import { capabilitiesOf } from '../engine/capabilities.ts';\nexport const used = capabilitiesOf;\n",
    says: ENGINE,
  },
  {
    name: 'no engine-name branch outside store/engine/, in a command or a worker',
    file: COMMAND_FILE,
    wrong: "export const branch = (engine: string) => engine === 'postgres';\n",
    right: "export const branch = (mode: string) => mode === 'live';\n",
    says: ENGINE,
  },
  {
    name: 'store/engine/ is where the engine is named',
    file: 'packages/server/src/store/engine/probe.ts',
    wrong: uses('../../http/types.ts'),
    right: "export const branch = (engine: string) => engine === 'postgres';\n",
    says: STORE,
  },
  {
    name: 'queries/ run no command, only repositories',
    file: 'packages/server/src/queries/probe.ts',
    wrong: uses('../commands/send-message.ts'),
    right: uses('../store/repos/messages.ts'),
    says: QUERIES,
  },
  {
    name: 'a REST route reads through queries/, never a repository',
    file: 'packages/server/src/http/routes/probe.ts',
    wrong: uses('../../store/repos/contacts.ts'),
    right: uses('../../queries/contacts.ts'),
    says: TRANSPORT,
  },
  {
    name: 'the tool server reads through queries/, taking a repository only for its row types',
    file: 'packages/server/src/mcp/probe.ts',
    wrong: uses('../store/repos/messages.ts'),
    right: usesType('../store/repos/messages.ts'),
    says: TRANSPORT,
  },
  {
    name: 'presenters/ import nothing of http/, only domain/',
    file: PRESENTER_FILE,
    wrong: uses('../http/types.ts'),
    right: uses('../domain/message-status.ts'),
    says: PRESENTERS,
  },
  {
    name: 'presenters/ take the store’s row types, never its queries',
    file: PRESENTER_FILE,
    wrong: uses('../store/repos/messages.ts'),
    right: usesType('../store/repos/messages.ts'),
    says: PRESENTERS,
  },
  {
    name: 'commands/ import no transport (http/), only the store',
    file: COMMAND_FILE,
    wrong: uses('../../http/types.ts'),
    right: uses('../../store/engine/write-queue.ts'),
    says: COMMANDS,
  },
  {
    name: 'commands/ take the Carrier port’s types, never an adapter',
    file: COMMAND_FILE,
    wrong: uses('../../carriers/sandbox/sandbox-carrier.ts'),
    right: usesType('../../carriers/carrier.ts'),
    says: COMMANDS,
  },
  {
    name: 'commands/ import no worker, only other commands and presenters',
    file: COMMAND_FILE,
    wrong: uses('../../workers/message-dispatcher.ts'),
    right: uses('../../presenters/message.ts'),
    says: COMMANDS,
  },
  {
    name: 'carriers/ import nothing of http/, only store, domain and lib',
    file: CARRIER_FILE,
    wrong: uses('../../http/types.ts'),
    right: uses('../../store/store.ts'),
    says: CARRIERS,
  },
  {
    name: 'carriers/ call no command: they report through the Carrier port',
    file: CARRIER_FILE,
    wrong: uses('../../commands/receive-message.ts'),
    right: uses('../carrier.ts'),
    says: CARRIERS,
  },
  {
    name: 'workers/ import nothing of http/, only commands',
    file: WORKER_FILE,
    wrong: uses('../http/types.ts'),
    right: uses('../commands/receive-message.ts'),
    says: WORKERS,
  },
  {
    name: 'workers/ import nothing of app-api/, only carriers',
    file: WORKER_FILE,
    wrong: uses('../app-api/session-auth.ts'),
    right: uses('../carriers/sandbox/sandbox-carrier.ts'),
    says: WORKERS,
  },
  {
    name: 'workers/ import nothing of mcp/, only the webhook worker of delivery/',
    file: WORKER_FILE,
    wrong: uses('../mcp/tools.ts'),
    right: uses('../delivery/webhook-worker.ts'),
    says: WORKERS,
  },
  {
    name: 'workers/ import nothing of realtime/, only the store',
    file: WORKER_FILE,
    wrong: uses('../realtime/hub.ts'),
    right: uses('../store/store.ts'),
    says: WORKERS,
  },
  {
    name: 'workers/ load no transport lazily either, only delivery/',
    file: WORKER_FILE,
    wrong: loads('../http/routes/mcp.ts'),
    right: loads('../delivery/guarded-dispatcher.ts'),
    says: WORKERS,
  },
  {
    name: 'workers/ take the type of config.ts, never its code',
    file: WORKER_FILE,
    wrong: uses('../config.ts'),
    right: usesType('../config.ts'),
    says: WORKERS,
  },
  {
    name: 'the SDK imports nothing of the server’s sources, only its own',
    file: SDK_FILE,
    wrong: uses('../../../server/src/domain/errors.ts'),
    right: uses('../errors.ts'),
    says: SDK,
  },
  {
    name: 'the SDK imports no server package',
    file: SDK_FILE,
    wrong: uses('@switchboard/server'),
    right: uses('../http.ts'),
    says: SDK,
  },
  {
    name: 'the softphone imports nothing of the server’s sources, only the SDK package',
    file: WEB_FILE,
    wrong: uses('../../../../server/src/commands/send-message.ts'),
    right: uses('@switchboard/sdk'),
    says: WEB,
  },
  {
    name: 'the softphone imports no server package, only its own code',
    file: WEB_FILE,
    wrong: uses('@switchboard/server'),
    right: uses('../../lib/format.ts'),
    says: WEB,
  },
  {
    name: 'the softphone imports the SDK by its package name, not its sources',
    file: WEB_FILE,
    wrong: uses('../../../../sdk/src/segments.ts'),
    right: uses('@switchboard/sdk/segments'),
    says: WEB,
  },
  {
    name: 'the softphone uses no Node module, only its libraries',
    file: WEB_FILE,
    wrong: uses('node:crypto'),
    right: uses('react'),
    says: WEB,
  },
];

describe('the dependency rule', () => {
  let eslint: ESLint;
  before(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  async function problems(file: string, code: string) {
    const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
    return result!.messages.map((message) => `${message.ruleId}: ${message.message}`);
  }

  for (const rule of RULES) {
    test(rule.name, async () => {
      const refused = await problems(rule.file, rule.wrong);
      assert.equal(refused.length, 1, `${rule.wrong} gave ${JSON.stringify(refused)}`);
      assert.match(refused[0]!, /restricted/);
      assert.ok(refused[0]!.includes(rule.says), `${refused[0]} does not say “${rule.says}”`);
      assert.deepEqual(await problems(rule.file, rule.right), []);
    });
  }

  test('each layer probed is a folder of the repository, so no rule lies on a renamed layer', () => {
    for (const file of new Set(RULES.map((rule) => rule.file))) {
      assert.ok(existsSync(join(ROOT, dirname(file))), `${dirname(file)} does not exist`);
    }
  });
});
