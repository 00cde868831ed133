import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';

/**
 * Graceful shutdown over keep-alive connections. Once the app starts closing,
 * every response carries `Connection: close`: a request in flight when
 * shutdown began would otherwise leave its connection open for the whole
 * keep-alive timeout, and the process could not exit until the client hung up.
 * A request that still arrives on such a connection is `503
 * service_unavailable` in the usual error shape (Fastify's own 503 has
 * neither that shape nor a request id). Register it before authentication,
 * so a refused request costs no database query.
 */
export function registerGracefulShutdown(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, _reply, done) => {
    if (closing) {
      done(new ApiError('service_unavailable', 'The server is shutting down; retry the request.'));
      return;
    }
    done();
  });
  app.addHook('onSend', (_request: FastifyRequest, reply: FastifyReply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
