// Properties every operation of the OpenAPI document keeps, whatever it is sent:
// never a 5xx, every failure in the error shape, nothing stored by a 4xx, every
// success as documented (test/support/request-runner.ts checks these on every
// request). Each run draws its own seed and prints it on failure;
// SWITCHBOARD_PROPERTY_SEED=<seed> replays that run, and SWITCHBOARD_PROPERTY_RUNS=<n>
// sends n requests per property on each engine for a longer hunt.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Engine } from '../../src/store/engine/capabilities.ts';
import { ENGINES } from '../support/engines.ts';
import {
  operationsOf,
  undocumentedMethods,
  type Operation,
} from '../support/openapi-operations.ts';
import { startPropertyWorld, type PropertyWorld } from '../support/property-world.ts';
import { mcpCases } from '../support/mcp-cases.ts';
import {
  malformedBody,
  prefixOf,
  realId,
  requestCases,
  someQuery,
  textId,
  validOrMutated,
  wrongMethodCases,
  type CaseShape,
  type RequestCase,
} from '../support/request-cases.ts';
import {
  someAuth,
  someContentEncoding,
  someContentType,
  someIdempotencyKey,
} from '../support/request-headers.ts';
import { RequestRunner, type Expectation } from '../support/request-runner.ts';

const SEED = process.env.SWITCHBOARD_PROPERTY_SEED
  ? Number(process.env.SWITCHBOARD_PROPERTY_SEED)
  : Date.now() % 2 ** 31;

/** Requests per property: most on SQLite, where one is cheapest, fewer on PostgreSQL. */
const RUNS: Record<Engine, number> = process.env.SWITCHBOARD_PROPERTY_RUNS
  ? {
      sqlite: Number(process.env.SWITCHBOARD_PROPERTY_RUNS),
      postgres: Number(process.env.SWITCHBOARD_PROPERTY_RUNS),
    }
  : { sqlite: 200, postgres: 70 };

for (const engine of ENGINES) {
  describe(`every operation, as a property [${engine}]`, () => {
    let world: PropertyWorld;
    let runner: RequestRunner;
    let operations: Operation[];
    before(async () => {
      world = await startPropertyWorld(engine);
      runner = new RequestRunner(world);
      operations = operationsOf(world.document);
    });
    after(() => world.t.close());

    /** Asserts the properties over `cases`, and `expect` of each answer. */
    async function holdsFor(cases: fc.Arbitrary<RequestCase>, expect?: Expectation) {
      await fc.assert(
        fc.asyncProperty(cases, async (c: RequestCase) => {
          await runner.check(c, expect);
        }),
        { numRuns: RUNS[engine], seed: SEED },
      );
    }

    /** Asserts the properties over requests to `among` (every operation), shaped by `shape`. */
    function holds(
      shape: CaseShape,
      expect?: Expectation,
      among: (operation: Operation) => boolean = () => true,
    ) {
      return holdsFor(
        fc.oneof(
          ...operations
            .filter(among)
            .map((operation) => requestCases(operation, world.validBodies(operation), shape)),
        ),
        expect,
      );
    }

    test('valid-looking and mutated bodies never answer 5xx, fail in the error shape, and a 4xx stores nothing', async () => {
      await holds({ body: validOrMutated });
    });

    test('texts in and out, keywords, groups and calls as clients send them never answer 5xx, and a refused one (an opted-out recipient) stores nothing', async () => {
      const messaging = operations.filter(
        (operation) => world.typicalBodies(operation) && !operation.path.startsWith('/webhook'),
      );
      await holdsFor(
        fc.oneof(
          ...messaging.map((operation) => requestCases(operation, world.typicalBodies(operation)!)),
        ),
      );
    });

    test('a body that is not JSON is 400 invalid_request and stores nothing', async () => {
      await holds({ body: malformedBody }, (c, res, context) => {
        // A byte order mark before the JSON is allowed to be ignored (RFC 8259, section 8.1).
        const text = c.body.kind === 'raw' ? String(c.body.bytes).replace(/^\ufeff/, '') : '';
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        // GET and DELETE take no body: theirs is not read.
        if (!parses && text.trim() !== '' && c.operation?.body) {
          assert.equal(res.status, 400, context);
          assert.equal(res.body.error.type, 'invalid_request', context);
        }
      });
    });

    test('any Authorization, Content-Type, Idempotency-Key or Content-Encoding: no 5xx, no key no entry, and a 4xx stores nothing', async () => {
      const shape: CaseShape = {
        auth: someAuth,
        contentType: someContentType,
        idempotencyKey: someIdempotencyKey,
        contentEncoding: someContentEncoding,
        body: validOrMutated,
      };
      await holds(shape, (c, res, context) => {
        if (c.auth.kind === 'key') return;
        // Headers over Node's 16 KB are refused by the HTTP parser, before anyone reads the key.
        const huge = c.auth.kind === 'raw' && c.auth.value.length > 16_384;
        assert.equal(res.status, huge ? 400 : 401, context);
      });
    });

    test("ids that are not the account's (random, percent-encoded junk, another account's or mode's) never answer 5xx, and name nothing: 404", async () => {
      const shape: CaseShape = {
        id: (prefix) => fc.oneof(textId, realId(prefix, ['test', 'live', 'other'])),
        query: someQuery,
        body: (operation, valid) =>
          operation.bodyRequired ? validOrMutated(operation, valid) : fc.constant({ kind: 'none' }),
      };
      await holds(
        shape,
        (c, res, context) => {
          if (!c.operation || c.operation.bodyRequired || c.query !== '') return;
          const kinds = Object.entries(c.ids).map(([param, id]) => {
            if (id.kind === 'real') {
              const own = id.owner === 'test' && id.prefix === prefixOf(c.operation!.path, param);
              return own ? 'own' : 'foreign';
            }
            if (id.length === null || id.length === 0) return 'junk';
            return 'plausible';
          });
          if (kinds.includes('junk')) return;
          // Whatever its length: an id that names nothing on the account is 404.
          if (kinds.includes('foreign') || kinds.includes('plausible')) {
            assert.equal(res.status, 404, context);
            assert.equal(res.body.error.type, 'not_found', context);
          }
        },
        (operation) => operation.pathParams.length > 0 || Object.keys(operation.query).length > 0,
      );
    });

    test('a method the document does not list for a path is 405, never a success, and stores nothing', async () => {
      await holdsFor(wrongMethodCases(undocumentedMethods(world.document)), (c, res, context) => {
        assert.equal(res.status, 405, context);
        assert.equal(res.body.error.type, 'method_not_allowed', context);
        assert.ok(res.headers.get('allow'), context);
      });
    });

    test("POST /v1/mcp never answers 5xx, fails in the API's or JSON-RPC's error shape, and a failed tool call stores nothing", async () => {
      await holdsFor(mcpCases(world));
    });
  });
}
