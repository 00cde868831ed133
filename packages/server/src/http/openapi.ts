import type { FastifyInstance, RouteOptions } from 'fastify';
import { describeWebhooks } from './openapi-webhooks.ts';

/** The version of the API description (spec 9). */
export const API_VERSION = '1.0.0';

type Json = Record<string, unknown>;

interface CollectedRoute {
  method: string;
  url: string;
  schema: Json;
}

const STATUS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'No content',
  '4xx': 'Client error',
};

/** Replaces every titled object schema by a `$ref` into `components.schemas`. */
function hoist(schema: unknown, components: Record<string, unknown>, root = true): unknown {
  if (Array.isArray(schema)) return schema.map((s) => hoist(s, components, false));
  if (!schema || typeof schema !== 'object') return schema;
  const source = JSON.parse(JSON.stringify(schema)) as Json;
  const out: Json = {};
  for (const [key, value] of Object.entries(source)) out[key] = hoist(value, components, false);
  const title = out.title;
  if (!root && typeof title === 'string' && out.type === 'object') {
    components[title] = out;
    return { $ref: `#/components/schemas/${title}` };
  }
  return out;
}

function hoistNamed(schema: unknown, components: Record<string, unknown>): unknown {
  const out = hoist(schema, components, true) as Json;
  if (typeof out.title === 'string' && out.type === 'object') {
    components[out.title] = out;
    return { $ref: `#/components/schemas/${out.title}` };
  }
  return out;
}

function parametersFrom(schema: unknown, location: 'path' | 'query'): Json[] {
  const properties =
    (schema as { properties?: Record<string, Json> } | undefined)?.properties ?? {};
  const required = new Set((schema as { required?: string[] } | undefined)?.required ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: JSON.parse(JSON.stringify(property)) as Json,
  }));
}

/** Builds the OpenAPI 3.1 document from the schemas the routes validate with. */
export function buildOpenApi(routes: CollectedRoute[]): Json {
  const components: Record<string, unknown> = {};
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = route.url.replace(/^\/v1/, '').replace(/:([A-Za-z_]+)/g, '{$1}');
    const { schema } = route;
    const operation: Json = {
      operationId: schema.operationId,
      summary: schema.summary,
      ...(schema.description ? { description: schema.description } : {}),
      tags: schema.tags,
      parameters: [
        ...parametersFrom(schema.params, 'path'),
        ...parametersFrom(schema.querystring, 'query'),
      ],
      responses: Object.fromEntries(
        Object.entries((schema.response as Json | undefined) ?? {}).map(([status, body]) => [
          status.toUpperCase(),
          {
            description: STATUS_TEXT[status] ?? 'Response',
            content: { 'application/json': { schema: hoistNamed(body, components) } },
          },
        ]),
      ),
    };
    // A body that takes no fields (NoBody) is not described; one without required fields
    // may be left out (see plugins/content-type.ts).
    const body = schema.body as { properties?: Json; required?: string[] } | undefined;
    if (body && Object.keys(body.properties ?? {}).length > 0) {
      operation.requestBody = {
        required: (body.required?.length ?? 0) > 0,
        content: { 'application/json': { schema: hoistNamed(schema.body, components) } },
      };
    }
    if (schema.security) operation.security = schema.security;
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard API',
      version: API_VERSION,
      description:
        'Send and receive SMS/MMS, keep a shared contact directory and receive signed webhooks.',
    },
    servers: [{ url: '/v1' }],
    security: [{ bearerAuth: [] }],
    paths,
    webhooks: describeWebhooks((schema) => hoistNamed(schema, components)),
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key: sk_test_… (sandbox) or sk_live_….',
        },
      },
    },
  };
}

/**
 * Collects every documented `/v1` route as it is registered, and serves the
 * document built from them at `GET /v1/openapi.json`.
 */
export function registerOpenApi(app: FastifyInstance): void {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as Json | undefined;
    if (!schema?.operationId || !route.url.startsWith('/v1')) return;
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: route.url, schema });
    }
  });
  let document: Json | null = null;
  app.get('/v1/openapi.json', { config: { public: true } }, async () => {
    document ??= buildOpenApi(routes);
    return document;
  });
}
