import { AssertionError } from 'node:assert';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as formats from 'ajv-formats';

type Json = Record<string, any>;

/** What the check reads of a response. */
export interface CheckedResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** The id the document is known to Ajv by, so `#/components/…` resolves inside it. */
const DOCUMENT_ID = 'https://switchboard.invalid/v1/openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** The compiled API description: the document, and a validator per schema location. */
export class Contract {
  readonly document: Json;
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();
  /** Each documented path as a pattern over the path below `/v1`, literal paths first. */
  readonly #paths: { template: string; pattern: RegExp }[];

  constructor(document: Json) {
    this.document = document;
    // OpenAPI 3.1 schemas are JSON Schema 2020-12; the document around them is not a
    // schema, hence strict off (its keys are not keywords, and Ajv skips them).
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    const addFormats = formats.default as unknown as (ajv: Ajv2020) => void;
    addFormats(this.#ajv);
    this.#ajv.addSchema(document, DOCUMENT_ID);
    this.#paths = Object.keys(document.paths ?? {})
      .map((template) => ({
        template,
        pattern: new RegExp(
          `^${template
            .split(/\{[^}]+\}/)
            .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
            .join('[^/]+')}$`,
        ),
      }))
      .sort((a, b) => Number(a.template.includes('{')) - Number(b.template.includes('{')));
    this.#compileAll();
  }

  /**
   * Compiles every schema a check can need, once: compiling on first use would put a
   * pause of tens of milliseconds between a test's requests, which timing-bound
   * suites (a message still `sent` a moment later) notice.
   */
  #compileAll(): void {
    this.validate('/components/schemas/Error', null);
    for (const [template, item] of Object.entries<Json>(this.document.paths ?? {})) {
      for (const [verb, operation] of Object.entries<Json>(item)) {
        const at = `/paths/${escapePointer(template)}/${verb}/responses`;
        for (const [key, response] of Object.entries<Json>(operation.responses ?? {})) {
          const { node, pointer } = this.#resolve(response, `${at}/${key}`);
          if (node.content?.['application/json']) {
            this.validate(`${pointer}/content/application~1json/schema`, null);
          }
          for (const [name, header] of Object.entries<Json>(node.headers ?? {})) {
            const resolved = this.#resolve(header, `${pointer}/headers/${escapePointer(name)}`);
            if (resolved.node.schema) this.validate(`${resolved.pointer}/schema`, null);
          }
        }
      }
    }
  }

  /** Validates `value` against the schema at `pointer` (a JSON pointer into the document). */
  validate(pointer: string, value: unknown): string | null {
    let validate = this.#validators.get(pointer);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      this.#validators.set(pointer, validate);
    }
    return validate(value) ? null : this.#ajv.errorsText(validate.errors, { dataVar: 'body' });
  }

  /**
   * Fails (an AssertionError naming the request) when a response breaks the document:
   * a status the operation does not list, a body off its schema, a required header
   * missing. A method or path the document does not have is held to the error shape only.
   */
  check(method: string, url: string, response: CheckedResponse): void {
    const path = url.split('?')[0]!;
    const where = `${method} ${path} answered ${response.status}`;
    const fail = (problem: string): never => {
      throw new AssertionError({
        message: `${where}: ${problem}\n  body: ${response.text.slice(0, 600)}`,
      });
    };
    const operation = this.#operation(method, path);
    if (!operation) {
      if (response.status >= 400 && method !== 'HEAD') this.#checkErrorShape(path, response, fail);
      return;
    }
    const { responses, pointer: operationPointer, operationId } = operation;
    const key = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find(
      (k) => responses[k] !== undefined,
    );
    if (key === undefined) {
      fail(`a status ${operationId} does not list (it lists ${Object.keys(responses).join(', ')})`);
    }
    const { node, pointer } = this.#resolve(
      responses[key!],
      `${operationPointer}/responses/${key}`,
    );
    for (const [name, header] of Object.entries<Json>(node.headers ?? {})) {
      const at = `${pointer}/headers/${escapePointer(name)}`;
      const { node: spec, pointer: headerPointer } = this.#resolve(header, at);
      const value = response.headers.get(name);
      if (value === null) {
        if (spec.required) fail(`the required header ${name} is missing`);
        continue;
      }
      const typed =
        spec.schema?.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      const error = this.validate(`${headerPointer}/schema`, typed);
      if (error) fail(`header ${name}: ${value} does not match its schema: ${error}`);
    }
    if (method === 'HEAD') return;
    const types = Object.keys(node.content ?? {});
    if (types.length === 0) {
      if (response.text !== '') fail(`a body the document does not describe for ${key}`);
      return;
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    // A body that is not JSON (a medium, TwiML) is held to its type only; an untyped one is
    // read as JSON where the document has JSON.
    const json = type === 'application/json' || (type === '' && types.includes('application/json'));
    if (!json) {
      if (!types.includes(type)) {
        fail(`a ${type || 'untyped'} body, where ${key} lists ${types.join(', ')}`);
      }
      return;
    }
    const error = this.validate(
      `${pointer}/content/application~1json/schema`,
      parse(response, fail),
    );
    if (error) fail(`the body does not match the ${key} schema of ${operationId}: ${error}`);
  }

  /** The documented operation of a request, with the JSON pointer to it. */
  #operation(method: string, path: string) {
    if (!path.startsWith('/v1/')) return undefined;
    const below = path.slice('/v1'.length);
    const verb = method.toLowerCase();
    for (const { template, pattern } of this.#paths) {
      if (!pattern.test(below) || !METHODS.includes(verb)) continue;
      const operation = this.document.paths[template][verb];
      if (!operation) return undefined;
      return {
        operationId: String(operation.operationId),
        responses: operation.responses as Json,
        pointer: `/paths/${escapePointer(template)}/${verb}`,
      };
    }
    return undefined;
  }

  /** Follows a local `$ref`; returns the node and its JSON pointer. */
  #resolve(node: Json, pointer: string): { node: Json; pointer: string } {
    if (typeof node.$ref !== 'string') return { node, pointer };
    const target = node.$ref.replace(/^#/, '');
    let found: any = this.document;
    for (const part of target.split('/').slice(1)) {
      found = found?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    }
    if (!found) throw new Error(`${node.$ref} does not resolve in the API description.`);
    return this.#resolve(found, target);
  }

  /** An answer outside the document is still an error in the API's shape. */
  #checkErrorShape(path: string, response: CheckedResponse, fail: (problem: string) => never) {
    const body = parse(response, fail);
    const error = this.validate('/components/schemas/Error', body);
    if (!error) return;
    // The MCP endpoint speaks JSON-RPC: its transport's own refusals are JSON-RPC errors.
    const jsonRpc =
      path === '/v1/mcp' &&
      body?.jsonrpc === '2.0' &&
      Number.isInteger(body.error?.code) &&
      typeof body.error?.message === 'string';
    if (!jsonRpc) fail(`an error body not in the error shape: ${error}`);
  }
}

/** A key as one segment of a JSON pointer (RFC 6901). */
function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function parse(response: CheckedResponse, fail: (problem: string) => never): any {
  try {
    return JSON.parse(response.text);
  } catch {
    return fail('a body that is not JSON');
  }
}

let loading: Promise<Contract> | null = null;

/**
 * The API description of the app under test, fetched from the first server a test
 * client talks to (or startTestApp starts) and compiled once per process: every app
 * of a test run serves the same document.
 */
export function contractOf(baseUrl: string): Promise<Contract> {
  loading ??= (async () => {
    const res = await fetch(`${baseUrl}/v1/openapi.json`);
    if (res.status !== 200) {
      throw new Error(`GET ${baseUrl}/v1/openapi.json answered ${res.status}: ${await res.text()}`);
    }
    return new Contract((await res.json()) as Json);
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

/**
 * POSTs as a client the project did not write (a provider's callback) and holds the answer
 * to the document, as ApiClient does; the answer is returned unread.
 */
export async function postChecked(url: string, init: RequestInit): Promise<Response> {
  const { origin, pathname } = new URL(url);
  const contract = await contractOf(origin);
  const response = await fetch(url, { ...init, method: 'POST' });
  const copy = response.clone();
  contract.check('POST', pathname, {
    status: copy.status,
    headers: copy.headers,
    text: await copy.text(),
  });
  return response;
}
