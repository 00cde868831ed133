import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { appApi } from './app-api/plugin.ts';
import { attachRealtime } from './realtime/hub.ts';
import { registerWebApp } from './http/web-app.ts';
import { ApiError } from './domain/errors.ts';
import { randomBase62 } from './lib/ids.ts';
import { registerAddressRateLimit } from './http/plugins/address-rate-limit.ts';
import { registerApiKeyAuth } from './http/plugins/auth.ts';
import { registerBodyDrain } from './http/plugins/body-drain.ts';
import { boundedServerFactory } from './http/plugins/connection-limits.ts';
import { registerContentEncoding } from './http/plugins/content-encoding.ts';
import { registerContentTypeCheck } from './http/plugins/content-type.ts';
import {
  clientErrorHandler,
  registerErrorHandling,
  sendApiError,
  sendFrameworkError,
} from './http/plugins/errors.ts';
import { registerIdempotency } from './http/plugins/idempotency.ts';
import { registerMethodNotAllowed } from './http/plugins/method-not-allowed.ts';
import { registerPathIds } from './http/plugins/path-ids.ts';
import { registerGracefulShutdown } from './http/plugins/shutdown.ts';
import { registerOpenApi } from './http/openapi.ts';
import { carrierCallbackRoutes } from './http/routes/carrier-callbacks.ts';
import { contactRoutes } from './http/routes/contacts.ts';
import { mediaRoutes } from './http/routes/media.ts';
import { healthRoutes } from './http/routes/health.ts';
import { mcpRoutes } from './http/routes/mcp.ts';
import { messageRoutes } from './http/routes/messages.ts';
import { sandboxRoutes } from './http/routes/sandbox.ts';
import { webhookEndpointRoutes } from './http/routes/webhook-endpoints.ts';
import { voiceEventRoutes } from './http/routes/voice-events.ts';
import { voiceRoutingRoutes } from './http/routes/voice-routing.ts';
import type { AppDeps } from './http/types.ts';
import { attachPushNotifier } from './delivery/push-notifier.ts';

export type { AppDeps } from './http/types.ts';

/** Largest request body accepted (a 1600-character message with ten URLs is far below). */
export const BODY_LIMIT_BYTES = 256 * 1024;

/**
 * The composition root of the HTTP service: every plugin and route, wired to
 * the given dependencies. It never listens, so tests inject requests or
 * listen on a port of their choosing.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const newRequestId = () => `req_${randomBase62(16)}`;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    serverFactory: boundedServerFactory(deps.config),
    genReqId: newRequestId,
    requestIdHeader: false,
    // Even failures before routing answer `{error: {type, message}}` with a request id.
    frameworkErrors: sendFrameworkError,
    clientErrorHandler: clientErrorHandler(newRequestId),
    ajv: {
      customOptions: {
        // Unknown fields are errors (422 naming the field), never silently dropped,
        // and types are never coerced: "5" is not a number.
        removeAdditional: false,
        coerceTypes: false,
        useDefaults: false,
        allErrors: false,
      },
    },
    // registerGracefulShutdown answers requests that arrive while closing.
    return503OnClosing: false,
    // An id of any length reaches its route and is looked up (404 when it names
    // nothing); Node's header limit (16 KiB) bounds a URL already.
    routerOptions: { maxParamLength: Number.MAX_SAFE_INTEGER },
  });
  app.decorate('deps', deps);
  // Hooks on every request take a callback, not a promise: a promise per hook per
  // request showed in the profile of the HTTP thread, for nothing.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('request-id', request.id);
    done(null, payload);
  });
  registerErrorHandling(app);
  registerGracefulShutdown(app);
  registerBodyDrain(app);
  registerAddressRateLimit(app);
  registerApiKeyAuth(app);
  registerMethodNotAllowed(app);
  registerPathIds(app);
  registerContentTypeCheck(app);
  registerContentEncoding(app);
  registerIdempotency(app);
  registerOpenApi(app);
  app.setNotFoundHandler((request, reply) =>
    sendApiError(
      reply,
      new ApiError('not_found', `No route for ${request.method} ${request.url}.`),
    ),
  );
  await app.register(healthRoutes);
  await app.register(messageRoutes, { prefix: '/v1' });
  await app.register(contactRoutes, { prefix: '/v1' });
  await app.register(webhookEndpointRoutes, { prefix: '/v1' });
  await app.register(sandboxRoutes, { prefix: '/v1' });
  await app.register(mcpRoutes, { prefix: '/v1' });
  await app.register(appApi, { prefix: '/app/api' });
  await app.register(voiceEventRoutes);
  await app.register(carrierCallbackRoutes, { prefix: '/v1' });
  await app.register(mediaRoutes, { prefix: '/v1' });
  await app.register(voiceRoutingRoutes);
  await registerWebApp(app);
  if (deps.config.roles.includes('realtime')) {
    attachRealtime(app, deps.realtimeHeartbeatMs ? { heartbeatMs: deps.realtimeHeartbeatMs } : {});
  }
  if (deps.config.roles.includes('worker')) {
    attachPushNotifier(app, deps.pushCa ? { ca: deps.pushCa } : {});
  }
  return app;
}
