import fc from 'fast-check';
import { applyMutations, bodyMutations, junkValue, type BodyMutation } from './body-mutations.ts';
import type { PropertyWorld } from './property-world.ts';
import { described, type AuthChoice, type BodyChoice, type RequestCase } from './request-cases.ts';
import { someAuth, someContentType, TEST_KEY } from './request-headers.ts';
import { someText } from './schema-arbitraries.ts';

/** What a Streamable HTTP client must accept (the MCP transport answers 406 otherwise). */
export const MCP_ACCEPT = 'application/json, text/event-stream';

/** Arguments of each tool as a model would write them, and then spoilt. */
function toolCalls(world: PropertyWorld): fc.Arbitrary<{ name: string; arguments: unknown }> {
  const own = fc.constantFrom(...world.actor.testNumbers);
  const phone = fc.oneof(
    fc.integer({ min: 100, max: 199 }).map((n) => `+1646555${String(n).padStart(4, '0')}`),
    own,
    fc.constantFrom('+15005550001', '4155550100', ''),
  );
  const messageId = fc.oneof(
    fc.nat().map((n) => world.ids.pick('test', 'msg', n)),
    fc.nat().map((n) => world.ids.pick('other', 'msg', n)),
    someText(70),
  );
  const tools: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
    send_text: fc.record(
      {
        from: fc.oneof({ weight: 3, arbitrary: own }, phone),
        to: phone,
        body: someText(160),
        idempotencyKey: fc.constantFrom('mcp-1', 'mcp-2', ''),
      },
      { requiredKeys: ['from', 'to', 'body'] },
    ),
    create_contact: fc.record(
      { phone, name: someText(60), email: fc.emailAddress(), company: someText(60) },
      { requiredKeys: ['phone'] },
    ),
    get_message_status: fc.record({ id: messageId }),
  };
  return fc.oneof(
    ...Object.entries(tools).map(([name, args]) =>
      fc
        .tuple(
          args,
          fc.oneof(
            { weight: 2, arbitrary: fc.constant<BodyMutation[]>([]) },
            fc.array(bodyMutations(Object.keys(args)), { minLength: 1, maxLength: 2 }),
          ),
        )
        .map(([valid, mutations]) => ({ name, arguments: applyMutations(valid, mutations) })),
    ),
    fc.record({ name: fc.constantFrom('nope', '', 'send_text '), arguments: junkValue }),
  );
}

/** JSON-RPC messages of every kind: tool calls, the protocol's own, batches, notifications, junk. */
function messages(world: PropertyWorld): fc.Arbitrary<unknown> {
  const id = fc.oneof(fc.nat(), fc.string({ maxLength: 8 }), fc.constant(null));
  const request = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        jsonrpc: fc.constant('2.0'),
        id,
        method: fc.constant('tools/call'),
        params: toolCalls(world),
      }),
    },
    fc.record({
      jsonrpc: fc.constant('2.0'),
      id,
      method: fc.constantFrom('tools/list', 'ping', 'resources/list', 'nope'),
    }),
    fc.constant({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      },
    }),
    fc.constant({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    fc.record({ jsonrpc: fc.constantFrom('1.0', 2, ''), id, method: fc.constant('tools/list') }),
  );
  return fc.oneof(
    { weight: 6, arbitrary: request },
    fc.array(request, { minLength: 1, maxLength: 3 }),
    junkValue,
  );
}

/** Requests to `POST /v1/mcp`: mostly as an agent sends them, sometimes with odd headers. */
export function mcpCases(world: PropertyWorld): fc.Arbitrary<RequestCase> {
  return fc
    .record({
      method: fc.constant('POST'),
      operation: fc.constant(null),
      path: fc.constant('/mcp'),
      ids: fc.constant({}),
      query: fc.constant(''),
      auth: fc.oneof(
        { weight: 5, arbitrary: fc.constant(TEST_KEY) },
        someAuth,
      ) as fc.Arbitrary<AuthChoice>,
      contentType: fc.oneof(
        { weight: 5, arbitrary: fc.constant('application/json') },
        someContentType,
      ),
      idempotencyKey: fc.constantFrom(null, 'mcp-header'),
      contentEncoding: fc.constant(null),
      accept: fc.oneof(
        { weight: 5, arbitrary: fc.constant(MCP_ACCEPT) },
        fc.constantFrom(null, 'application/json', 'text/event-stream', '*/*'),
      ),
      body: messages(world).map((value): BodyChoice => ({ kind: 'json', value })),
    })
    .map(described);
}
