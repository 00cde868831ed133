import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { ApiError } from './domain/errors.ts';
import { isMode, type Mode } from './domain/modes.ts';
import { systemClock } from './lib/clock.ts';
import { createLogger } from './lib/logger.ts';
import { hashPassword } from './lib/secrets.ts';
import { createSecretBox, loadSecretKey } from './lib/secret-box.ts';
import { localChanges } from './commands/changes.ts';
import { webhookDeps } from './delivery/webhook-deps.ts';
import { addNumber } from './commands/add-number.ts';
import { bootstrapDemo } from './commands/bootstrap-demo.ts';
import { createAccount } from './commands/create-account.ts';
import { createApiKey } from './commands/create-api-key.ts';
import { createUser, MIN_PASSWORD_LENGTH } from './commands/create-user.ts';
import { revokeApiKey } from './commands/revoke-api-key.ts';
import { BackupRefused, postgresRecipe } from './backup/backup-files.ts';
import { restoreBackup } from './backup/restore-backup.ts';
import { takeBackup } from './backup/take-backup.ts';
import { authenticateApiKey, type ApiKeyPrincipal } from './commands/authenticate-api-key.ts';
import {
  addCarrierConnection,
  carrierInput,
  describeCarriers,
  listCarrierConnections,
  removeCarrierConnection,
} from './cli/carriers.ts';
import { startServer, type RunningServer } from './server.ts';
import { openStore, type Store } from './store/store.ts';

const USAGE = `Usage: switchboard <command> [options]

Commands:
  serve [--port N] [--data DIR]                       run the service
  accounts create --name NAME                         create an account with sandbox numbers
  keys create --account ACCT --mode test|live         issue an API key (its secret is shown once)
  keys revoke KEY_ID                                  revoke a key (refused on the next request)
  numbers add --account ACCT --mode test|live E164 [--carrier CAR_ID] [--voice-carrier CAR_SIP]
                                                      provision a number (live: through a connection)
  carriers add --account ACCT --type smpp --host H [--port N] --system-id ID --password PW
      [--system-type T] [--tls] [--window N] [--throughput N] [--long-messages udh|payload]
      [--receipt-ids dec|hex] [--bind-mode transceiver|pair]
  carriers add --account ACCT --type twilio --account-sid AC… --auth-token T
      [--messaging-service-sid MG…] [--api-base URL]
  carriers add --account ACCT --type telnyx --api-key K --public-key PK
      [--messaging-profile-id ID] [--api-base URL]
                                                      add a live carrier connection
  carriers add --account ACCT --type sip --host H [--port 5060] [--transport udp|tcp|tls]
      [--username U --password P]                     add a SIP trunk for live calls
  carriers list --account ACCT                        the account's connections and their state
  carriers remove CAR_ID                              remove a connection
  users create --account ACCT --email E --password P [--name N] [--role member|owner]
                                                      create a softphone login
  mcp                                                 serve the AI-agent tools over stdio, acting
                                                      with the key in SWITCHBOARD_API_KEY
  backup --to FILE [--data DIR]                       copy the SQLite store (while it runs) to FILE,
                                                      and its secret key to FILE.key
  restore --from FILE [--data DIR] [--force]          put a backup into a data directory whose
                                                      server is stopped

Every command but serve and mcp accepts --json and then prints one JSON document.
Configuration comes from the environment (see README): PORT, HOST,
SWITCHBOARD_DATA_DIR, DATABASE_URL, ...`;

const OPTIONS = {
  json: { type: 'boolean' },
  port: { type: 'string' },
  data: { type: 'string' },
  name: { type: 'string' },
  account: { type: 'string' },
  mode: { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  role: { type: 'string' },
  to: { type: 'string' },
  from: { type: 'string' },
  force: { type: 'boolean' },
  carrier: { type: 'string' },
  'voice-carrier': { type: 'string' },
  transport: { type: 'string' },
  username: { type: 'string' },
  type: { type: 'string' },
  host: { type: 'string' },
  'system-id': { type: 'string' },
  'system-type': { type: 'string' },
  tls: { type: 'boolean' },
  window: { type: 'string' },
  throughput: { type: 'string' },
  'long-messages': { type: 'string' },
  'receipt-ids': { type: 'string' },
  'bind-mode': { type: 'string' },
  'account-sid': { type: 'string' },
  'auth-token': { type: 'string' },
  'messaging-service-sid': { type: 'string' },
  'api-key': { type: 'string' },
  'public-key': { type: 'string' },
  'messaging-profile-id': { type: 'string' },
  'api-base': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

/** A mistake in how the command was called (exit code 2). */
class UsageError extends Error {}

function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function modeOption(values: Values): Mode {
  const mode = required(values, 'mode');
  if (!isMode(mode)) throw new UsageError('--mode must be test or live');
  return mode;
}

/**
 * The store of a command other than `serve`: it hears no other process's signals (it
 * has no softphone or worker to tell), so it does not count as an instance listening.
 */
async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    durability: config.durability,
    hearOthers: false,
  });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

function print(json: boolean, document: object, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(document)}\n` : `${human}\n`);
}

/** What `backup` says when the backup holds no key file (never the key itself). */
function noKeyNote(config: Config): string {
  return config.secretKey
    ? 'The secret key is NOT in the backup: SWITCHBOARD_SECRET_KEY encrypts its webhook secrets. Keep that key with the backup; a restore cannot read them without it.'
    : `${config.dataDir} has no secret key file yet, so the backup has none: nothing was encrypted with one.`;
}

async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  // Listening for SIGTERM from the start: one that arrives while the server starts (voice's
  // programs take a moment after the port answers) is kept and acted on once it has started,
  // never left to kill the process with its children still running.
  let server: RunningServer | null = null;
  let signalled: string | null = null;
  let stopping = false;
  const stop = (signal: string) => {
    if (!server) {
      signalled ??= signal;
      return;
    }
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    // The bound is a promise to the operator (README, SWITCHBOARD_SHUTDOWN_TIMEOUT_MS): every
    // answered change is already durable, so exiting at it loses nothing that was accepted.
    setTimeout(() => {
      logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  const bootstrap = await withStore(config, (store) =>
    bootstrapDemo(store, { clock: systemClock }),
  );
  server = await startServer(config, logger, {
    // Nothing can be changed without the store thread: better a restart than a service
    // that answers every write with an error.
    onFatal: (error) => {
      logger.fatal({ err: error }, 'the store thread stopped; exiting');
      process.exit(1);
    },
  });
  if (bootstrap) {
    process.stdout.write(
      [
        '',
        'Switchboard is ready. A demo account was created for this fresh data directory:',
        `  account        ${bootstrap.accountId}`,
        `  test API key   ${bootstrap.testKey}   (shown only now)`,
        `  test numbers   ${bootstrap.testNumbers.join(', ')}`,
        `  softphone      ${server.url}/app/  login ${bootstrap.login.email} / ${bootstrap.login.password}`,
        `  API            ${server.url}/v1`,
        `  voice          ${server.voice}`,
        '',
        `  curl -X POST ${server.url}/v1/contacts -H 'Authorization: Bearer ${bootstrap.testKey}' \\`,
        `       -H 'Content-Type: application/json' -d '{"phone":"+14155550123","name":"Ada"}'`,
        '',
      ].join('\n'),
    );
  }
  logger.info({ url: server.url, engine: server.store.engine, voice: server.voice }, 'listening');
  if (signalled) stop(signalled);
}

/** Authenticates `SWITCHBOARD_API_KEY` by the API's rules, worded for an operator. */
async function mcpPrincipal(store: Store, key: string): Promise<ApiKeyPrincipal> {
  try {
    return await authenticateApiKey(store.db, `Bearer ${key}`);
  } catch (error) {
    if (error instanceof ApiError && error.type === 'unauthorized') {
      throw new ApiError(
        'unauthorized',
        'SWITCHBOARD_API_KEY was refused: it is not a valid, unrevoked API key of this storage (sk_test_… or sk_live_…).',
      );
    }
    throw error;
  }
}

/**
 * `switchboard mcp`: the tool server on stdin/stdout for a local agent, acting
 * with one API key. stdout carries protocol messages only, so logs go to stderr.
 * Like the other operator commands it works on the storage; a `serve` process on
 * the same storage moves queued sends on to the carrier.
 */
async function serveMcp(config: Config): Promise<void> {
  const key = process.env.SWITCHBOARD_API_KEY?.trim();
  if (!key) {
    throw new ConfigError([
      'SWITCHBOARD_API_KEY must hold the API key the tools act with (sk_test_… or sk_live_…)',
    ]);
  }
  const logger = createLogger(config.logLevel, process.stderr);
  // Loaded here only: the MCP SDK costs every other command about 250 ms of start-up.
  const { serveStdio } = await import('./mcp/stdio.ts');
  await withStore(config, async (store) => {
    const principal = await mcpPrincipal(store, key);
    const secrets = createSecretBox(loadSecretKey(config.secretKey, config.dataDir));
    await serveStdio(principal, {
      store,
      changes: localChanges(store, webhookDeps({ clock: systemClock, secrets, config })),
      clock: systemClock,
      secrets,
      reportError: (error) => logger.error({ err: error }, 'mcp tool failed'),
      // Revocation takes effect on the next call, as it does on the next REST request.
      authorize: async () => {
        await mcpPrincipal(store, key);
      },
    });
  });
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
  });
  const [command, sub, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // `--port` is the HTTP port of `serve`; `carriers add` takes it as the SMSC's.
  const httpPort = command === 'serve' ? values.port : undefined;
  const config = loadConfig(process.env, { port: httpPort, dataDir: values.data });
  const json = values.json ?? false;
  const deps = { clock: systemClock };
  switch (`${command} ${sub ?? ''}`.trim()) {
    case 'serve':
      return serve(config);
    case 'mcp':
      return serveMcp(config);
    case 'accounts create': {
      const name = required(values, 'name');
      const account = await withStore(config, (s) =>
        s.write((tx) => createAccount(tx, { name }, deps)),
      );
      return print(
        json,
        account,
        `Created ${account.id} (${account.name}) with test numbers ${account.testNumbers.join(', ')}`,
      );
    }
    case 'keys create': {
      const accountId = required(values, 'account');
      const mode = modeOption(values);
      const key = await withStore(config, (s) =>
        s.write((tx) => createApiKey(tx, { accountId, mode }, deps)),
      );
      const document = { id: key.id, mode: key.mode, secret: key.secret };
      return print(
        json,
        document,
        `Created ${key.id}: ${key.secret}\nThis secret is shown only once; store it now.`,
      );
    }
    case 'keys revoke': {
      const keyId = rest[0];
      if (!keyId) throw new UsageError('keys revoke needs a KEY_ID');
      const result = await withStore(config, (s) =>
        s.write((tx) => revokeApiKey(tx, { keyId }, deps)),
      );
      return print(json, result, `Revoked ${result.id}`);
    }
    case 'numbers add': {
      const phone = rest[0];
      if (!phone) throw new UsageError('numbers add needs an E.164 number');
      const accountId = required(values, 'account');
      const mode = modeOption(values);
      const carrierId = values.carrier;
      const voiceCarrierId = values['voice-carrier'];
      const number = await withStore(config, (s) =>
        s.write((tx) => addNumber(tx, { accountId, mode, phone, carrierId, voiceCarrierId }, deps)),
      );
      return print(json, number, `Added ${number.phone} to ${number.accountId} (${number.mode})`);
    }
    case 'carriers add': {
      const accountId = required(values, 'account');
      const secrets = createSecretBox(loadSecretKey(config.secretKey, config.dataDir));
      const connection = await withStore(config, (s) =>
        addCarrierConnection(s, accountId, carrierInput(values), {
          clock: systemClock,
          secrets,
          publicUrl: config.publicUrl,
        }),
      );
      return print(json, connection, `Added ${connection.id} (${connection.type}) to ${accountId}`);
    }
    case 'carriers list': {
      const accountId = required(values, 'account');
      const list = await withStore(config, (s) =>
        listCarrierConnections(s, accountId, systemClock, config.publicUrl),
      );
      return print(json, list, describeCarriers(list.data));
    }
    case 'carriers remove': {
      const id = rest[0];
      if (!id) throw new UsageError('carriers remove needs a CAR_ID');
      const removed = await withStore(config, (s) => removeCarrierConnection(s, id, systemClock));
      return print(json, removed, `Removed ${removed.id}`);
    }
    case 'users create': {
      const accountId = required(values, 'account');
      const email = required(values, 'email');
      const password = required(values, 'password');
      if (password.length < MIN_PASSWORD_LENGTH) {
        throw new UsageError(`--password must be at least ${MIN_PASSWORD_LENGTH} characters`);
      }
      const role = values.role ?? 'member';
      if (role !== 'owner' && role !== 'member')
        throw new UsageError('--role must be owner or member');
      const passwordHash = await hashPassword(password);
      const user = await withStore(config, (s) =>
        s.write((tx) =>
          createUser(tx, { accountId, email, name: values.name, role, passwordHash }, deps),
        ),
      );
      return print(
        json,
        user,
        `Created ${user.id} <${user.email}> (${user.role}) on ${user.accountId}`,
      );
    }
    case 'backup': {
      if (config.databaseUrl) throw postgresRecipe('backup');
      const to = required(values, 'to');
      const result = await takeBackup({ dataDir: config.dataDir, secretKey: config.secretKey, to });
      const keyNote = result.keyFile
        ? `The secret key that opens its webhook secrets is in ${result.keyFile} (mode 0600): keep the two together, and private.`
        : noKeyNote(config);
      return print(
        json,
        result.keyIncluded ? result : { ...result, warning: keyNote },
        `Backed up ${config.dataDir} to ${result.file} (${result.pages} pages, ${result.bytes} bytes).\n${keyNote}`,
      );
    }
    case 'restore': {
      if (config.databaseUrl) throw postgresRecipe('restore');
      const from = required(values, 'from');
      const result = await restoreBackup({
        from,
        dataDir: config.dataDir,
        secretKey: config.secretKey,
        force: values.force ?? false,
      });
      const keyNote = result.keyRestored
        ? `Its secret key is now ${result.dataDir}/secret.key.`
        : 'No key file came with it: a server on it uses SWITCHBOARD_SECRET_KEY (or, unset, makes a new key file).';
      return print(
        json,
        result,
        `Restored ${from} into ${result.database} (${result.bytes} bytes). ${keyNote}`,
      );
    }
    default:
      throw new UsageError(`Unknown command '${positionals.join(' ')}'.\n\n${USAGE}`);
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  const json = process.argv.includes('--json');
  let code = 1;
  let type = 'internal_error';
  let message = error instanceof Error ? error.message : String(error);
  if (
    error instanceof UsageError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
  ) {
    code = 2;
    type = 'usage';
  } else if (error instanceof ConfigError) {
    code = 2;
    type = 'configuration';
  } else if (error instanceof BackupRefused) {
    type = error.type;
  } else if (error instanceof ApiError) {
    type = error.type;
    message = error.param ? `${error.param}: ${error.message}` : error.message;
  }
  if (json) process.stdout.write(`${JSON.stringify({ error: { type, message } })}\n`);
  else process.stderr.write(`switchboard: ${message}\n`);
  process.exit(code);
});
