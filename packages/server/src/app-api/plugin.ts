import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { carrierRoutes } from './routes/carriers.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { directoryRoutes } from './routes/directory.ts';
import { inboxRoutes } from './routes/inbox.ts';
import { mediaUploadRoutes } from './routes/media-upload.ts';
import { sessionRoutes } from './routes/session.ts';
import { teamWorkflowRoutes } from './routes/team-workflow.ts';
import { notificationRoutes } from './routes/notifications.ts';
import { registerSessionAuth } from './session-auth.ts';
import { voiceRoutes } from './routes/voice.ts';

/**
 * The softphone's own API under `/app/api`: cookie sessions instead of API
 * keys, CSRF protection on changes, and the same commands as the public API.
 */
export async function appApi(app: FastifyInstance): Promise<void> {
  // Registered here, not on the root: its hooks then run for the app's routes only, not
  // for every API request (3 % of a send's time went to its onSend hook).
  await app.register(fastifyCookie);
  registerSessionAuth(app);
  await app.register(sessionRoutes);
  await app.register(inboxRoutes);
  await app.register(directoryRoutes);
  await app.register(dashboardRoutes);
  await app.register(carrierRoutes);
  await app.register(teamWorkflowRoutes);
  await app.register(notificationRoutes);
  await app.register(voiceRoutes);
  await app.register(mediaUploadRoutes);
}
