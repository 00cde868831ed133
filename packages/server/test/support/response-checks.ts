import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { TestResponse } from './http.ts';
import { resolveRefs, type Json, type Operation } from './openapi-operations.ts';

/** What each failure answers: `{error: {type, message, param?}}` and nothing else, as JSON. */
export function assertErrorShape(res: TestResponse, errorTypes: string[], context: string): void {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, context);
  assert.match(res.headers.get('request-id') ?? '', /^req_[0-9A-Za-z]+$/, context);
  assert.ok(res.body && typeof res.body === 'object', context);
  assert.deepEqual(Object.keys(res.body), ['error'], context);
  const error = res.body.error;
  assert.ok(error && typeof error === 'object' && !Array.isArray(error), context);
  for (const key of Object.keys(error))
    assert.ok(['type', 'message', 'param'].includes(key), context);
  assert.ok(errorTypes.includes(error.type), context);
  assert.equal(typeof error.message, 'string', context);
  assert.ok(error.message.length > 0, context);
  if ('param' in error) assert.equal(typeof error.param, 'string', context);
  if (res.status === 429)
    assert.match(res.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/, context);
}

/**
 * A failure of `POST /v1/mcp`: the API's error body when the API's own checks refused
 * it (the key, the Content-Type), else the transport's JSON-RPC error object.
 */
export function assertMcpError(res: TestResponse, errorTypes: string[], context: string): void {
  if (res.body?.error?.type !== undefined) return assertErrorShape(res, errorTypes, context);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, context);
  assert.equal(res.body?.jsonrpc, '2.0', context);
  assert.ok(Number.isInteger(res.body.error?.code), context);
  assert.equal(typeof res.body.error.message, 'string', context);
}

/**
 * The resources the successful tool calls of an MCP answer carry (their
 * `structuredContent`); a call that failed answers `isError` and carries none.
 */
export function toolResults(res: TestResponse, context: string): Record<string, unknown>[] {
  if (res.status === 202) {
    assert.equal(res.text, '', context);
    return [];
  }
  assert.equal(res.status, 200, context);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, context);
  const answers: any[] = Array.isArray(res.body) ? res.body : [res.body];
  const results: Record<string, unknown>[] = [];
  for (const answer of answers) {
    assert.equal(answer?.jsonrpc, '2.0', context);
    assert.ok('result' in answer || Number.isInteger(answer.error?.code), context);
    const structured = answer.result?.structuredContent;
    if (structured !== undefined) {
      assert.notEqual(answer.result.isError, true, context);
      results.push(structured);
    }
  }
  return results;
}

/** Validators of the documented success bodies, compiled once per operation. */
export class SuccessSchemas {
  readonly #ajv: Ajv2020;
  readonly #document: Json;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    this.#document = document;
    // The document's own keywords (`examples`, `description`) are annotations, not rules.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(this.#ajv);
  }

  /** Asserts `res` is the documented success of `operation`: its status, JSON, and its schema. */
  assertSuccess(operation: Operation, res: TestResponse, context: string): void {
    assert.equal(res.status, operation.success.status, context);
    if (operation.success.schema === null) return;
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/, context);
    let validate = this.#compiled.get(operation.operationId);
    if (!validate) {
      validate = this.#ajv.compile(resolveRefs(this.#document, operation.success.schema));
      this.#compiled.set(operation.operationId, validate);
    }
    assert.ok(validate(res.body), `${context}\n${JSON.stringify(validate.errors)}`);
  }
}
