import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { Clock } from '../lib/clock.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { Actor } from '../commands/context.ts';
import type { Changes } from '../commands/changes.ts';
import { findRecordedResponse, idempotentRequest } from '../commands/idempotency.ts';
import type { SendMessageInput } from '../commands/send-message.ts';
import { getMessage } from '../queries/get-message.ts';
import type { ReadStore } from '../store/store.ts';
import {
  toolArgumentsError,
  toolResult,
  type ToolErrorReporter,
  type ToolOutcome,
} from './results.ts';
import {
  ContactOutput,
  CreateContactInput,
  DESCRIPTIONS,
  GetMessageStatusInput,
  INSTRUCTIONS,
  MessageOutput,
  SendTextInput,
} from './schemas.ts';
import { scoped } from '../store/scope.ts';

/** The name and version the server announces to clients. */
export const SERVER_INFO = { name: 'switchboard', version: '1.0.0' } as const;

/** What the tools need: reads, changes, time, and the box recorded answers may be sealed with. */
export interface ToolServerDeps {
  store: ReadStore;
  changes: Changes;
  clock: Clock;
  secrets: SecretBox;
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
    const recorded = await findRecordedResponse(deps.store.db, actor, request, KEY_PARAM, {
      clock: deps.clock,
      open: (sealed) => deps.secrets.open(sealed),
    });
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
  return { resource: await getMessage(scoped(store.db, actor), id) };
}

/** A tool: what the model reads of it, and what a call with valid arguments does. */
interface ToolDefinition<Input extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: Input;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  call: (args: z.infer<Input>) => Promise<ToolOutcome>;
}

const tool = <Input extends z.ZodObject>(definition: ToolDefinition<Input>) =>
  definition as unknown as ToolDefinition<z.ZodObject>;

/** How a tool is listed: its schemas as JSON Schema (draft 7, as the SDK's own servers list them). */
function listed(definition: ToolDefinition<z.ZodObject>): Tool {
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: z.toJSONSchema(definition.input, {
      target: 'draft-7',
      io: 'input',
    }) as Tool['inputSchema'],
    outputSchema: z.toJSONSchema(definition.output, {
      target: 'draft-7',
      io: 'output',
    }) as Tool['outputSchema'],
    annotations: definition.annotations,
  };
}

/**
 * An MCP server exposing Switchboard's tools to an agent acting for one account
 * in one mode (the principal of an API key). Built per HTTP request or once per
 * stdio process; every tool goes through the same commands as the REST API.
 *
 * Built on the SDK's Server, not its McpServer: McpServer checks a call's arguments
 * itself and answers a mistake with its own words ("MCP error -32602: Input validation
 * error: …"), where an agent of this API gets the API's `validation_error` naming the
 * field (toolArgumentsError), as every other failed call does.
 */
export function createToolServer(actor: Actor, deps: ToolServerDeps): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
  });
  const { store, changes, reportError, authorize } = deps;
  const tools = [
    tool({
      name: 'send_text',
      title: 'Send a text message',
      description: DESCRIPTIONS.send_text,
      input: SendTextInput,
      output: MessageOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
      call: (args) => sendText(actor, args, deps),
    }),
    tool({
      name: 'create_contact',
      title: 'Create a contact',
      description: DESCRIPTIONS.create_contact,
      input: CreateContactInput,
      output: ContactOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      call: async (args) => ({
        resource: await changes.run('createContact', { actor, input: args }),
      }),
    }),
    tool({
      name: 'get_message_status',
      title: 'Get a message status',
      description: DESCRIPTIONS.get_message_status,
      input: GetMessageStatusInput,
      output: MessageOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
      call: ({ id }) => messageStatus(actor, id, store),
    }),
  ];
  const byName = new Map(tools.map((definition) => [definition.name, definition]));
  const catalog = tools.map(listed);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalog }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const definition = byName.get(request.params.name);
    // An unknown tool is the client's protocol error (MCP: tools/call, "Error Handling").
    if (!definition) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    // The key is checked first, then the arguments; a failure becomes an isError result.
    return toolResult(async () => {
      await authorize?.();
      const args = request.params.arguments ?? {};
      const parsed = definition.input.safeParse(args);
      if (!parsed.success) throw toolArgumentsError(parsed.error, args);
      return definition.call(parsed.data);
    }, reportError);
  });
  return server;
}
