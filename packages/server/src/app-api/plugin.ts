import type { FastifyInstance } from 'fastify';
import { dashboardRoutes } from './routes/dashboard.ts';
import { directoryRoutes } from './routes/directory.ts';
import { inboxRoutes } from './routes/inbox.ts';
import { sessionRoutes } from './routes/session.ts';
import { registerSessionAuth } from './session-auth.ts';

/**
 * The softphone's own API under `/app/api`: cookie sessions instead of API
 * keys, CSRF protection on changes, and the same commands as the public API.
 */
export async function appApi(app: FastifyInstance): Promise<void> {
  registerSessionAuth(app);
  await app.register(sessionRoutes);
  await app.register(inboxRoutes);
  await app.register(directoryRoutes);
  await app.register(dashboardRoutes);
}
