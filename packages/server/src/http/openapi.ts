import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorBody } from './schemas/common.ts';
import { documentHeader } from './openapi-info.ts';
import {
  errorResponses,
  errorStatuses,
  sharedComponents,
  successHeaders,
  type OperationTraits,
} from './openapi-responses.ts';
import { hoistNamed, parametersFrom, type Json } from './openapi-schemas.ts';
import { describeWebhooks } from './openapi-webhooks.ts';

interface CollectedRoute {
  method: string;
  url: string;
  schema: Json;
  /** Answers without an API key (`config.public`). */
  isPublic: boolean;
}

const STATUS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'No content',
};

/** A route schema's fields, as far as the document reads them. */
interface RouteSchema {
  params?: { properties?: Json };
  querystring?: { properties?: Json };
  body?: { properties?: Json; required?: string[] };
  /** A body the route reads as sent, not as JSON it validates (a provider's callback), by type. */
  rawBody?: Record<string, { schema: Json }>;
  response?: Json;
}

/** What decides an operation's error statuses (see openapi-responses.ts). */
function traitsOf(route: CollectedRoute): OperationTraits {
  const schema = route.schema as RouteSchema;
  const response = Object.keys(schema.response ?? {});
  return {
    method: route.method,
    hasPathParams: Object.keys(schema.params?.properties ?? {}).length > 0,
    hasInput: [schema.params, schema.querystring, schema.body].some(
      (part) => Object.keys(part?.properties ?? {}).length > 0,
    ),
    hasBody: schema.body !== undefined || schema.rawBody !== undefined,
    isPublic: route.isPublic,
    // A range such as `4xx` only gives errors their serializer; each status is listed here.
    declared: response.filter((status) => /^[45]\d\d$/.test(status)),
  };
}

/**
 * A success's `content`: JSON, or the content types of a response that is not (a medium), as
 * Fastify takes them (`{content: {type: {schema}}}`).
 */
function contentOf(body: Json, components: Json): Json {
  const content = body.content as Record<string, { schema: Json }> | undefined;
  if (!content) return { 'application/json': { schema: hoistNamed(body, components) } };
  return Object.fromEntries(
    Object.entries(content).map(([type, part]) => [
      type,
      { schema: hoistNamed(part.schema, components) },
    ]),
  );
}

/** One operation: its parameters, body, and every status it can answer. */
function describeOperation(route: CollectedRoute, components: Json): Json {
  const schema = route.schema as RouteSchema & Json;
  // Only a key's POSTs take an Idempotency-Key: the service keeps answers per key.
  const post = route.method === 'POST' && !route.isPublic;
  const successes = Object.entries(schema.response ?? {}).filter(([s]) => /^[23]\d\d$/.test(s));
  const operation: Json = {
    operationId: schema.operationId,
    summary: schema.summary,
    ...(schema.description ? { description: schema.description } : {}),
    tags: schema.tags,
    parameters: [
      ...parametersFrom(schema.params, 'path'),
      ...parametersFrom(schema.querystring, 'query'),
      ...(post ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
    ],
    responses: {
      ...Object.fromEntries(
        successes.map(([status, body]) => [
          status,
          {
            description: STATUS_TEXT[status] ?? 'Success',
            headers: successHeaders(post),
            content: contentOf(body as Json, components),
          },
        ]),
      ),
      ...errorResponses(traitsOf(route)),
    },
  };
  // A body that takes no fields (NoBody) is not described; one without required fields
  // may be left out (see plugins/content-type.ts).
  const body = schema.body;
  if (body && Object.keys(body.properties ?? {}).length > 0) {
    operation.requestBody = {
      required: (body.required?.length ?? 0) > 0,
      content: { 'application/json': { schema: hoistNamed(body, components) } },
    };
  }
  if (schema.rawBody) {
    operation.requestBody = {
      required: true,
      content: contentOf({ content: schema.rawBody }, components),
    };
  }
  if (route.isPublic) operation.security = [];
  return operation;
}

/** Builds the OpenAPI 3.1 document from the schemas the routes validate with. */
export function buildOpenApi(routes: CollectedRoute[]): Json {
  const schemas: Json = {};
  hoistNamed(ErrorBody, schemas);
  const paths: Record<string, Json> = {};
  const statuses = new Set<string>();
  for (const route of routes) {
    const path = route.url.replace(/^\/v1/, '').replace(/:([A-Za-z_]+)/g, '{$1}');
    paths[path] = {
      ...paths[path],
      [route.method.toLowerCase()]: describeOperation(route, schemas),
    };
    errorStatuses(traitsOf(route)).forEach((status) => statuses.add(status));
  }
  const { info, servers, tags, securitySchemes } = documentHeader();
  return {
    openapi: '3.1.0',
    info,
    servers,
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    webhooks: describeWebhooks((schema) => hoistNamed(schema, schemas)),
    components: { schemas, ...sharedComponents(statuses), securitySchemes },
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
    const isPublic = route.config?.public === true;
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: route.url, schema, isPublic });
    }
  });
  let document: Json | null = null;
  app.get('/v1/openapi.json', { config: { public: true } }, async () => {
    document ??= buildOpenApi(routes);
    return document;
  });
}
