// `GET /v1/media/{id}?token=…`: a kept inbound medium, to whoever holds its signed link (a
// webhook consumer has no API key). An altered or ended link, or a medium no longer kept, is 404.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { findMedia } from '../../queries/media.ts';
import { mediaTokenValid } from '../media/media-links.ts';

export async function mediaRoutes(app: FastifyInstance): Promise<void> {
  const { store, secrets, clock } = app.deps;
  app.get<{ Params: { id: string }; Querystring: { token?: string } }>(
    '/media/:id',
    { config: { public: true } },
    async (request, reply) => {
      const { id } = request.params;
      const token = typeof request.query.token === 'string' ? request.query.token : undefined;
      const medium = mediaTokenValid(secrets, id, token, clock.now())
        ? await findMedia(store.db, id)
        : undefined;
      if (!medium) throw new ApiError('not_found', `No such media: '${id}'.`);
      return reply
        .type(medium.content_type)
        .header('cache-control', 'private, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .send(Buffer.from(medium.data, 'base64'));
    },
  );
}
