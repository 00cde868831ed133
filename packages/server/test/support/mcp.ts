import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The tools every Switchboard MCP server offers, sorted by name. */
export const TOOL_NAMES = ['create_contact', 'get_message_status', 'send_text'];

/** A connected SDK client over `transport`, named for the test that uses it. */
export async function connectClient(
  transport: Transport,
  name = 'switchboard-tests',
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** What a tool call answered, as tests look at it. */
export interface ToolAnswer {
  isError: boolean;
  /** The structured content (successes) or the parsed JSON of the text content. */
  json: any;
  structured: any;
  meta: Record<string, unknown> | undefined;
}

/** Calls a tool and checks the invariants of every answer: one JSON text item, and on success the same resource as structuredContent. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer> {
  const result: any = await client.callTool({ name, arguments: args });
  assert.equal(result.content.length, 1, `one content item from ${name}`);
  assert.equal(result.content[0].type, 'text');
  const json = JSON.parse(result.content[0].text);
  const isError = result.isError === true;
  if (!isError)
    assert.deepEqual(result.structuredContent, json, 'text and structured content agree');
  return { isError, json, structured: result.structuredContent, meta: result._meta };
}

/** Asserts a tool answered `isError` with the API's error body of `type` (and `param`, when given). */
export function assertToolError(answer: ToolAnswer, type: string, param?: string): void {
  assert.equal(
    answer.isError,
    true,
    `expected an error result, got ${JSON.stringify(answer.json)}`,
  );
  assert.equal(answer.structured, undefined, 'an error carries no structured content');
  assert.equal(answer.json.error.type, type, JSON.stringify(answer.json));
  assert.equal(typeof answer.json.error.message, 'string');
  assert.ok(answer.json.error.message.length > 0);
  if (param !== undefined) assert.equal(answer.json.error.param, param);
}

/** Asserts the listed tools are exactly Switchboard's, with the inputs a model needs to fill them. */
export function assertToolCatalog(tools: any[]): void {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  assert.deepEqual([...byName.keys()].sort(), TOOL_NAMES);
  const send = byName.get('send_text');
  assert.deepEqual([...send.inputSchema.required].sort(), ['body', 'from', 'to']);
  assert.deepEqual(Object.keys(send.inputSchema.properties).sort(), [
    'body',
    'from',
    'idempotencyKey',
    'to',
  ]);
  assert.equal(send.inputSchema.additionalProperties, false);
  assert.match(send.inputSchema.properties.to.description, /E\.164/);
  assert.match(send.description, /queued/);
  const contact = byName.get('create_contact');
  assert.deepEqual(contact.inputSchema.required, ['phone']);
  assert.deepEqual(Object.keys(contact.inputSchema.properties).sort(), [
    'company',
    'email',
    'name',
    'phone',
  ]);
  const status = byName.get('get_message_status');
  assert.deepEqual(status.inputSchema.required, ['id']);
  assert.equal(status.annotations?.readOnlyHint, true);
  for (const tool of tools) {
    assert.ok(tool.description.length > 40, `${tool.name} has a description`);
    assert.equal(tool.outputSchema?.type, 'object', `${tool.name} declares its output`);
  }
}
