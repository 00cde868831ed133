import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Clock } from '../lib/clock.ts';
import type { Actor } from '../commands/context.ts';
import type { Changes } from '../commands/changes.ts';
import { findRecordedResponse, idempotentRequest } from '../commands/idempotency.ts';
import type { SendMessageInput } from '../commands/send-message.ts';
import { getMessage } from '../commands/get-message.ts';
import type { ReadStore } from '../store/store.ts';
import { toolResult, type ToolErrorReporter, type ToolOutcome } from './results.ts';
import {
  ContactOutput,
  CreateContactInput,
  DESCRIPTIONS,
  GetMessageStatusInput,
  INSTRUCTIONS,
  MessageOutput,
  SendTextInput,
} from './schemas.ts';

/** The name and version the server announces to clients. */
export const SERVER_INFO = { name: 'switchboard', version: '1.0.0' } as const;

/** What the tools need: reads, changes and time. */
export interface ToolServerDeps {
  store: ReadStore;
  changes: Changes;
  clock: Clock;
  /** Receives failures that are not the caller's, to be logged; the agent sees `internal_error`. */
  reportError: ToolErrorReporter;
  /**
   * Runs before every call and throws `unauthorized` once the key is revoked. A stdio
   * process outlives many calls; over HTTP every request is authenticated anyway.
   */
  authorize?: () => Promise<void>;
}

// A key given to send_text names the same request as `POST /v1/messages` with that
// `Idempotency-Key`, so one key is one send whether it came over REST or MCP.
const SEND_METHOD = 'POST';
const SEND_PATH = '/v1/messages';
const KEY_PARAM = 'idempotencyKey';
const CREATED = 201;

/**
 * Sends through the same command and write path as `POST /v1/messages`; with a
 * key, a repeat replays the first answer and a different request under it is
 * `idempotency_conflict`, exactly as over REST.
 */
async function sendText(
  actor: Actor,
  args: { from: string; to: string; body: string; idempotencyKey?: string | undefined },
  deps: ToolServerDeps,
): Promise<ToolOutcome> {
  const { idempotencyKey, ...input } = args;
  const replayed = (body: string): ToolOutcome => ({
    resource: JSON.parse(body) as object,
    replayed: true,
  });
  const request =
    idempotencyKey === undefined
      ? null
      : idempotentRequest(idempotencyKey, KEY_PARAM, SEND_METHOD, SEND_PATH, input);
  if (request) {
    const recorded = await findRecordedResponse(deps.store.db, actor, request, KEY_PARAM, deps);
    if (recorded) return replayed(recorded.body);
  }
  const outcome = await deps.changes.runIdempotently(
    'sendMessage',
    { actor, input: input satisfies SendMessageInput },
    { actor, request, param: KEY_PARAM, statusCode: CREATED },
  );
  return outcome.replayed ? replayed(outcome.body) : { resource: outcome.body };
}

/** The message as `GET /v1/messages/{id}` shows it; another account's or mode's id is not found. */
async function messageStatus(actor: Actor, id: string, store: ReadStore): Promise<ToolOutcome> {
  return { resource: await getMessage(store.db, actor, id) };
}

/**
 * An MCP server exposing Switchboard's tools to an agent acting for one account
 * in one mode (the principal of an API key). Built per HTTP request or once per
 * stdio process; every tool goes through the same commands as the REST API.
 */
export function createToolServer(actor: Actor, deps: ToolServerDeps): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  const { store, changes, reportError, authorize } = deps;
  // Every tool answers through here: the key is checked, then the failure (if any)
  // becomes an isError result rather than a protocol error.
  const run = (work: () => Promise<ToolOutcome>) =>
    toolResult(async () => {
      await authorize?.();
      return work();
    }, reportError);

  server.registerTool(
    'send_text',
    {
      title: 'Send a text message',
      description: DESCRIPTIONS.send_text,
      inputSchema: SendTextInput,
      outputSchema: MessageOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    (args) => run(() => sendText(actor, args, deps)),
  );

  server.registerTool(
    'create_contact',
    {
      title: 'Create a contact',
      description: DESCRIPTIONS.create_contact,
      inputSchema: CreateContactInput,
      outputSchema: ContactOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    (args) =>
      run(async () => ({
        resource: await changes.run('createContact', { actor, input: args }),
      })),
  );

  server.registerTool(
    'get_message_status',
    {
      title: 'Get a message status',
      description: DESCRIPTIONS.get_message_status,
      inputSchema: GetMessageStatusInput,
      outputSchema: MessageOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ id }) => run(() => messageStatus(actor, id, store)),
  );

  return server;
}
