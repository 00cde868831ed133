/** A JSON Schema or OpenAPI node, read loosely. */
export type Json = Record<string, any>;

/** One operation of the OpenAPI document, as the property suite drives it. */
export interface Operation {
  operationId: string;
  method: string;
  /** The documented path, without the `/v1` of `servers`: `/contacts/{id}`. */
  path: string;
  /** Path parameters, in the order they appear in `path`. */
  pathParams: string[];
  /** Query parameters, by name. */
  query: Record<string, Json>;
  /** The request body's schema (refs resolved), if the operation documents one. */
  body: Json | null;
  bodyRequired: boolean;
  /** The documented success status and its body's schema (refs left as they are). */
  success: { status: number; schema: Json | null };
}

/** Follows local `$ref`s (`#/components/schemas/X`) all the way down, for generators. */
export function resolveRefs(document: Json, node: unknown): any {
  if (Array.isArray(node)) return node.map((item) => resolveRefs(document, item));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as Json).$ref;
  if (typeof ref === 'string') {
    let target: any = document;
    for (const part of ref.replace(/^#\//, '').split('/')) target = target?.[part];
    if (!target) throw new Error(`${ref} does not resolve`);
    return resolveRefs(document, target);
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, resolveRefs(document, value)]),
  );
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of `document`, each path and method, in the document's order. */
export function operationsOf(document: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation: Json | undefined = item[method];
      if (!operation) continue;
      // Answered without a key (a medium's signed link, a provider's signed callback): their
      // own suites hold them to the document; these properties are of the keyed API.
      if (Array.isArray(operation.security) && operation.security.length === 0) continue;
      const parameters: Json[] = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
      const successes = Object.keys(operation.responses ?? {}).filter((s) => /^2\d\d$/.test(s));
      if (successes.length === 0) throw new Error(`${method} ${path} documents no success`);
      // The first: the sandbox call trigger's other one (202, `ring`) needs voice, off here.
      const status = successes.sort()[0]!;
      const content = operation.requestBody?.content?.['application/json'];
      operations.push({
        operationId: String(operation.operationId),
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        query: Object.fromEntries(
          parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.schema ?? {}]),
        ),
        body: content ? resolveRefs(document, content.schema) : null,
        bodyRequired: operation.requestBody?.required === true,
        success: {
          status: Number(status),
          // A medium's bytes or a provider's TwiML are no JSON: no schema to hold them to.
          schema: operation.responses[status].content['application/json']?.schema ?? null,
        },
      });
    }
  }
  return operations;
}

/** `(method, path)` pairs the document does not list, on the paths it does: wrong methods. */
export function undocumentedMethods(document: Json): { method: string; path: string }[] {
  const pairs: { method: string; path: string }[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const method of METHODS) {
      if (!item[method]) pairs.push({ method: method.toUpperCase(), path });
    }
  }
  return pairs;
}
