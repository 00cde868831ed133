import fc from 'fast-check';
import { applyMutations, bodyMutations, junkString, malformedJson } from './body-mutations.ts';
import type { Operation } from './openapi-operations.ts';
import { TEST_KEY } from './request-headers.ts';

/** Whose key a request carries: the actor account's test or live key, or another account's. */
export type Owner = 'test' | 'live' | 'other';

/** What a request's Authorization carries (test/support/request-headers.ts makes them). */
export type AuthChoice =
  | { kind: 'key'; owner: Owner; scheme: string }
  | { kind: 'garbled'; owner: Owner; how: string }
  | { kind: 'none' }
  | { kind: 'raw'; value: string };

/** A path parameter: a real id, picked when the request is sent, or any text. */
export type IdChoice =
  | { kind: 'real'; owner: Owner; prefix: string; pick: number }
  | {
      kind: 'text';
      /** As it goes in the path (already percent-encoded, or junk on purpose). */
      text: string;
      /** Characters of the id the path names once decoded; null for junk that decodes to none. */
      length: number | null;
    };

export type BodyChoice =
  { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; bytes: string | Buffer };

/** One request, described by the choices that make it. */
export interface RequestCase {
  method: string;
  /** The documented operation, or null for a method its path does not document. */
  operation: Operation | null;
  path: string;
  ids: Record<string, IdChoice>;
  /** `''` or `?…`, as sent. */
  query: string;
  auth: AuthChoice;
  contentType: string | null;
  idempotencyKey: string | null;
  contentEncoding: string | null;
  /** Only the MCP endpoint looks at it. */
  accept: string | null;
  body: BodyChoice;
}

/** Id prefixes of the resources a path names: `/contacts/{id}` holds a `ct_` id. */
export const ID_PREFIXES: Record<string, string> = {
  messages: 'msg',
  contacts: 'ct',
  webhook_endpoints: 'whe',
  deliveries: 'whd',
  conversations: 'cv',
};

/** The prefix of the id a path parameter holds: the collection just before it. */
export function prefixOf(path: string, param: string): string {
  const parts = path.split('/');
  const at = parts.indexOf(`{${param}}`);
  return ID_PREFIXES[parts[at - 1] ?? ''] ?? 'msg';
}

/** Percent-encoding of any string, a lone surrogate too (as U+FFFD, which a browser would send). */
export const percentEncoded = (text: string): string => encodeURIComponent(text.toWellFormed());

/** Ids as they go into a path: percent-encoded text of any length and alphabet, or junk. */
export const textId: fc.Arbitrary<IdChoice> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('', 'msg_', 'ct_', 'whe_', 'whd_', 'cv_', 'acct_', 'key_', 'evt_'),
      fc.oneof(
        fc.string({ unit: 'grapheme-ascii', maxLength: 200 }),
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.string({ unit: 'binary', maxLength: 30 }),
      ),
    )
    .map(([prefix, rest]) => {
      const id = prefix + rest;
      return { kind: 'text', text: percentEncoded(id), length: id.length };
    }),
  fc
    .constantFrom(
      '%00',
      '%zz',
      '%',
      '%2F',
      '%C0%AF',
      '%ff',
      '%E2%82',
      '..',
      '.',
      ';',
      'a;b=c',
      '%2e%2e',
      '~',
    )
    .map((text) => ({ kind: 'text', text, length: null })),
) as fc.Arbitrary<IdChoice>;

/** Ids made of the characters real ones have, that name nothing. */
export const plainId: fc.Arbitrary<IdChoice> = fc
  .stringMatching(/^[A-Za-z0-9_]{1,64}$/)
  .map((text) => ({ kind: 'text', text, length: text.length }));

/** A real id of any owner, sometimes of another kind of resource than the path names. */
export function realId(prefix: string, owners: Owner[]): fc.Arbitrary<IdChoice> {
  return fc.record({
    kind: fc.constant('real' as const),
    owner: fc.constantFrom(...owners),
    prefix: fc.oneof(
      { weight: 4, arbitrary: fc.constant(prefix) },
      fc.constantFrom(...Object.values(ID_PREFIXES)),
    ),
    pick: fc.nat(),
  });
}

/** What a generated request may vary, each with its own arbitrary (defaults: a valid-looking request). */
export interface CaseShape {
  auth?: fc.Arbitrary<AuthChoice>;
  contentType?: fc.Arbitrary<string | null>;
  idempotencyKey?: fc.Arbitrary<string | null>;
  contentEncoding?: fc.Arbitrary<string | null>;
  /** Ids for a path parameter whose ids start with `prefix`. */
  id?: (prefix: string) => fc.Arbitrary<IdChoice>;
  query?: (operation: Operation) => fc.Arbitrary<string>;
  /** The body of an operation, from the arbitrary of its valid-looking bodies. */
  body?: (operation: Operation, valid: fc.Arbitrary<unknown>) => fc.Arbitrary<BodyChoice>;
}

/** Valid-looking bodies, or valid-looking bodies with one to three mutations. */
export function validOrMutated(
  operation: Operation,
  valid: fc.Arbitrary<unknown>,
): fc.Arbitrary<BodyChoice> {
  const fields = Object.keys(operation.body?.properties ?? {});
  return fc.oneof(
    valid.map((value) => ({ kind: 'json', value }) as BodyChoice),
    fc
      .tuple(valid, fc.array(bodyMutations(fields), { minLength: 1, maxLength: 3 }))
      .map(
        ([value, mutations]) =>
          ({ kind: 'json', value: applyMutations(value, mutations) }) as BodyChoice,
      ),
  );
}

/** Malformed JSON text in place of the body. */
export function malformedBody(
  _operation: Operation,
  valid: fc.Arbitrary<unknown>,
): fc.Arbitrary<BodyChoice> {
  return malformedJson(valid).map((bytes) => ({ kind: 'raw', bytes }) as BodyChoice);
}

/** A documented query, with values in and out of its schema, and unknown or repeated names. */
export function someQuery(operation: Operation): fc.Arbitrary<string> {
  const names = Object.keys(operation.query);
  const value = fc.oneof(
    fc.constantFrom('1', '20', '100', '0', '101', '-1', '1.5', '1e2', 'abc', '', '%00', '%zz'),
    junkString.filter((s) => s.length < 300).map(percentEncoded),
  );
  const pair = fc.tuple(fc.constantFrom(...names, 'foo', 'limit[]', '__proto__'), value);
  return fc
    .array(pair, { maxLength: 3 })
    .map((pairs) =>
      pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${percentEncoded(k)}=${v}`).join('&')}`,
    );
}

const NO_QUERY = () => fc.constant('');

/** A request as a failure report shows it: its choices, with an excerpt of the body. */
export function describeCase(c: RequestCase): string {
  const body =
    c.body.kind === 'json'
      ? (JSON.stringify(c.body.value) ?? 'undefined')
      : c.body.kind === 'raw'
        ? String(c.body.bytes)
        : '(none)';
  const { method, path, ids, query, auth, contentType, idempotencyKey, contentEncoding, accept } =
    c;
  const choices = { ids, query, auth, contentType, idempotencyKey, contentEncoding, accept };
  const excerpt = body.length > 300 ? `${body.slice(0, 300)}… (${body.length} chars)` : body;
  return `${method} ${path} ${JSON.stringify(choices).slice(0, 600)} body ${excerpt}`;
}

/**
 * Requests to `operation` shaped by `shape`; each dimension left out is a valid-looking
 * choice: the actor's test key, JSON, a real id of the actor, a body from `valid`.
 */
export function requestCases(
  operation: Operation,
  valid: fc.Arbitrary<unknown>,
  shape: CaseShape = {},
): fc.Arbitrary<RequestCase> {
  const id = shape.id ?? ((prefix: string) => realId(prefix, ['test']));
  const ids = fc.record(
    Object.fromEntries(
      operation.pathParams.map((param) => [param, id(prefixOf(operation.path, param))]),
    ),
  );
  const body: fc.Arbitrary<BodyChoice> = shape.body
    ? shape.body(operation, valid)
    : operation.body
      ? valid.map((value) => ({ kind: 'json', value }) as BodyChoice)
      : fc.constant({ kind: 'none' } as BodyChoice);
  return fc
    .record({
      method: fc.constant(operation.method),
      operation: fc.constant(operation),
      path: fc.constant(operation.path),
      ids,
      query: (shape.query ?? NO_QUERY)(operation),
      auth: shape.auth ?? fc.constant(TEST_KEY),
      contentType: shape.contentType ?? fc.constant('application/json'),
      idempotencyKey: shape.idempotencyKey ?? fc.constant(null),
      contentEncoding: shape.contentEncoding ?? fc.constant(null),
      accept: fc.constant(null),
      body,
    })
    .map(described);
}

/** `c`, shown in failure reports as `describeCase` words it. */
export function described(c: RequestCase): RequestCase {
  return Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) });
}

/**
 * Requests with a method the document does not list for the path (`PUT /contacts`),
 * with the actor's key, real or made-up ids and any acceptable JSON body or none.
 */
export function wrongMethodCases(
  pairs: { method: string; path: string }[],
): fc.Arbitrary<RequestCase> {
  return fc
    .constantFrom(...pairs)
    .chain(({ method, path }) =>
      fc.record({
        method: fc.constant(method),
        operation: fc.constant(null),
        path: fc.constant(path),
        ids: fc.record(
          Object.fromEntries(
            [...path.matchAll(/\{([^}]+)\}/g)].map((m) => [
              m[1]!,
              fc.oneof(realId(prefixOf(path, m[1]!), ['test']), plainId),
            ]),
          ),
        ),
        query: fc.constant(''),
        auth: fc.constant(TEST_KEY),
        contentType: fc.constant('application/json'),
        idempotencyKey: fc.constant(null),
        contentEncoding: fc.constant(null),
        accept: fc.constant(null),
        body: fc.oneof(
          fc.constant<BodyChoice>({ kind: 'none' }),
          fc
            .jsonValue({ maxDepth: 2 })
            // Keys the JSON parser refuses (400) before any route is looked for.
            .filter((value) => !/"(__proto__|constructor)":/.test(JSON.stringify(value)))
            .map((value): BodyChoice => ({ kind: 'json', value })),
        ),
      }),
    )
    .map(described);
}
