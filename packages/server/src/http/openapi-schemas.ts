/** A JSON object of the OpenAPI document. */
export type Json = Record<string, unknown>;

/** A deep copy of plain JSON, without TypeBox's symbol keys. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Replaces every titled object schema inside `schema` by a `$ref` into
 * `components.schemas` (kept in `components`), so each resource is described once.
 */
function hoist(schema: unknown, components: Json, root: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((s) => hoist(s, components, false));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(plain(schema) as Json)) {
    out[key] = hoist(value, components, false);
  }
  const title = out.title;
  if (!root && typeof title === 'string' && out.type === 'object') {
    components[title] = out;
    return { $ref: `#/components/schemas/${title}` };
  }
  return out;
}

/** `schema` with its titled parts hoisted; itself a `$ref` when it is titled too. */
export function hoistNamed(schema: unknown, components: Json): unknown {
  const out = hoist(schema, components, true) as Json;
  if (typeof out.title === 'string' && out.type === 'object') {
    components[out.title] = out;
    return { $ref: `#/components/schemas/${out.title}` };
  }
  return out;
}

/** The path or query parameters of a route's `params` / `querystring` schema. */
export function parametersFrom(schema: unknown, location: 'path' | 'query'): Json[] {
  const properties =
    (schema as { properties?: Record<string, Json> } | undefined)?.properties ?? {};
  const required = new Set((schema as { required?: string[] } | undefined)?.required ?? []);
  return Object.entries(properties).map(([name, property]) => {
    // The description is the parameter's, not its schema's.
    const { description, ...rest } = plain(property);
    return {
      name,
      in: location,
      ...(typeof description === 'string' ? { description } : {}),
      required: location === 'path' || required.has(name),
      schema: rest,
    };
  });
}
