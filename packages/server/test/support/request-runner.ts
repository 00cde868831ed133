import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import type { TestResponse } from './http.ts';
import { snapshotDatabase, snapshotTables, type SnapshotTable } from './db-snapshot.ts';
import { exactRequest, type ExactRequest } from './exact-request.ts';
import type { PropertyWorld } from './property-world.ts';
import type { RequestCase } from './request-cases.ts';
import { authorization, GZIPPED } from './request-headers.ts';
import {
  assertErrorShape,
  assertMcpError,
  SuccessSchemas,
  toolResults,
} from './response-checks.ts';

/** Never a host name to resolve: the suite's network is 127.0.0.1 and ::1 only. */
function withoutDnsName(value: unknown): unknown {
  if (!value || typeof value !== 'object' || !('url' in value) || typeof value.url !== 'string') {
    return value;
  }
  try {
    const host = new URL(value.url).hostname;
    if (/^[\d.]+$|^\[|^localhost$/.test(host)) return value;
  } catch {
    return value;
  }
  return { ...value, url: 'http://127.0.0.1:9/hooks' };
}

/** The path of the MCP tool server, which answers in JSON-RPC's words as well as the API's. */
export const MCP_PATH = '/mcp';

/** The exact request a case makes, its real ids picked from what exists now. */
export function requestOf(world: PropertyWorld, c: RequestCase): ExactRequest {
  let path = `/v1${c.path}`;
  for (const [param, id] of Object.entries(c.ids)) {
    const text = id.kind === 'real' ? world.ids.pick(id.owner, id.prefix, id.pick) : id.text;
    path = path.replace(`{${param}}`, text);
  }
  const headers: Record<string, string> = {};
  const auth = authorization(world.keys, c.auth);
  if (auth !== null) headers.authorization = auth;
  if (c.contentType !== null) headers['content-type'] = c.contentType;
  if (c.idempotencyKey !== null) headers['idempotency-key'] = c.idempotencyKey;
  if (c.accept !== null) headers.accept = c.accept;
  let body: string | Buffer | undefined =
    c.body.kind === 'json'
      ? (JSON.stringify(withoutDnsName(c.body.value)) ?? 'null')
      : c.body.kind === 'raw'
        ? c.body.bytes
        : undefined;
  if (c.contentEncoding === GZIPPED) {
    headers['content-encoding'] = 'gzip';
    if (body !== undefined) body = gzipSync(body);
  } else if (c.contentEncoding !== null) {
    headers['content-encoding'] = c.contentEncoding;
  }
  return { method: c.method, path: path + c.query, headers, body };
}

/** A request and its answer, in a few lines a failure message can show. */
export function describeExchange(request: ExactRequest, res: TestResponse): string {
  const body =
    request.body === undefined
      ? '(no body)'
      : Buffer.isBuffer(request.body)
        ? `(${request.body.length} bytes)`
        : request.body.length > 300
          ? `${request.body.slice(0, 300)}… (${request.body.length} chars)`
          : request.body;
  const headers = Object.entries(request.headers)
    .map(([k, v]) => `${k}: ${v.length > 120 ? `${v.slice(0, 120)}…` : v}`)
    .join('\n  ');
  return [
    `${request.method} ${request.path.slice(0, 300)}`,
    `  ${headers}`,
    `  ${body}`,
    `→ ${res.status} ${res.text.slice(0, 400)}`,
  ].join('\n');
}

/** An extra expectation of one property, on a request and its answer. */
export type Expectation = (c: RequestCase, res: TestResponse, context: string) => void;

/**
 * Sends cases one at a time and checks what every answer must be: never a 5xx; a
 * failure in the error shape; a 4xx (or an MCP tool call that failed) that leaves the
 * database exactly as it was; a success with the status and body the document lists.
 */
export class RequestRunner {
  readonly #world: PropertyWorld;
  readonly #schemas: SuccessSchemas;
  readonly #errorTypes: string[];
  #tables: SnapshotTable[] = [];
  /** The database as the last request left it. */
  #last: Record<string, string> | null = null;

  constructor(world: PropertyWorld) {
    this.#world = world;
    this.#schemas = new SuccessSchemas(world.document);
    this.#errorTypes =
      world.document.components.schemas.Error.properties.error.properties.type.enum;
  }

  async #snapshot(): Promise<Record<string, string>> {
    if (this.#tables.length === 0) this.#tables = await snapshotTables(this.#world.t.store);
    return snapshotDatabase(this.#world.t.store, this.#tables);
  }

  async check(c: RequestCase, expect?: Expectation): Promise<TestResponse> {
    const before = this.#last ?? (await this.#snapshot());
    const request = requestOf(this.#world, c);
    const res = await exactRequest(this.#world.port, request);
    const context = describeExchange(request, res);
    // Whatever happens next, the following request compares with what this one left.
    this.#last = null;
    assert.ok(res.status >= 200 && res.status < 500, `never a 5xx (or no answer):\n${context}`);
    const mcp = c.path === MCP_PATH;
    let unchanged = true;
    if (res.status >= 300) {
      if (mcp) assertMcpError(res, this.#errorTypes, context);
      else assertErrorShape(res, this.#errorTypes, context);
    } else {
      assert.equal(c.auth.kind, 'key', `only a real key is let in:\n${context}`);
      const owner = c.auth.kind === 'key' ? c.auth.owner : 'test';
      if (mcp) {
        // A tool call that answers isError changed nothing, like a 4xx of the REST API.
        const results = toolResults(res, context);
        for (const result of results) this.#world.ids.addFrom(owner, result);
        unchanged = results.length === 0;
      } else {
        assert.ok(c.operation, `a method the document does not list never succeeds:\n${context}`);
        this.#schemas.assertSuccess(c.operation, res, context);
        this.#world.ids.addFrom(owner, res.body);
        unchanged = false;
      }
    }
    if (unchanged) {
      const after = await this.#snapshot();
      assert.deepEqual(after, before, `a ${res.status} stores nothing:\n${context}`);
      this.#last = after;
    }
    // A rate limit may refuse anything (its shape is checked above); the rest is the property's.
    if (res.status !== 429) expect?.(c, res, context);
    return res;
  }
}
