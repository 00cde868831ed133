import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';

/** `GET /healthz`: 200 when the process serves and its store answers; no authentication. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', { config: { public: true } }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(app.deps.store.db);
      return { status: 'ok', engine: app.deps.store.engine };
    } catch {
      return reply.code(503).send({
        error: { type: 'service_unavailable', message: 'The store does not answer.' },
      });
    }
  });
}
