import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { ApiError } from '../domain/errors.ts';
import { sendApiError } from './plugins/errors.ts';

/** Where `npm run build -w @switchboard/web` puts the softphone. */
export const WEB_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Switchboard</title>
<p>The softphone has not been built. Run <code>npm run build</code> (npm start does it for you).</p>`;

/**
 * Serves the softphone at `/app`: its built files, and `index.html` for every
 * other `/app/…` path so client-side routes (`/app/link?…`, `/app/calls`)
 * load the app. `/app/api/*` stays JSON.
 */
export async function registerWebApp(app: FastifyInstance): Promise<void> {
  const built = existsSync(`${WEB_DIST}index.html`);
  if (built) {
    await app.register(fastifyStatic, {
      root: WEB_DIST,
      prefix: '/app/',
      wildcard: false,
      index: false,
      // Hashed asset names never change content; the shell and worker must revalidate.
      setHeaders: (reply, path) => {
        const immutable = /\/assets\//.test(path);
        reply.header(
          'cache-control',
          immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }
  const shell = () => (built ? readFileSync(`${WEB_DIST}index.html`, 'utf8') : NOT_BUILT);
  const sendShell = async (_request: unknown, reply: FastifyReply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(shell());
  app.get('/', { config: { public: true } }, async (_request, reply) => reply.redirect('/app/'));
  // The app lives under /app/, which its service worker covers (scope /app/); /app itself
  // would load it online and fail offline, so it moves to /app/, query and all.
  app.get('/app', { config: { public: true } }, async (request, reply) => {
    const query = request.url.indexOf('?');
    return reply.redirect(`/app/${query === -1 ? '' : request.url.slice(query)}`, 301);
  });
  app.get('/app/', { config: { public: true } }, sendShell);
  app.get('/app/*', { config: { public: true } }, async (request, reply) => {
    if (request.url.startsWith('/app/api/')) {
      return sendApiError(
        reply,
        new ApiError('not_found', `No route for ${request.method} ${request.url}.`),
      );
    }
    return sendShell(request, reply);
  });
}
