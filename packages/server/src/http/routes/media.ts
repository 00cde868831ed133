// `GET /v1/media/{id}?token=…`: a kept inbound medium, to whoever holds its signed link (a
// webhook consumer has no API key). An altered or ended link, or a medium no longer kept, is 404.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../domain/errors.ts';
import { KEPT_TYPES } from '../../domain/media-store.ts';
import { ErrorBody } from '../schemas/common.ts';
import { findMedia } from '../../queries/media.ts';
import { mediaTokenValid } from '../media/media-links.ts';

/** The medium's bytes, of the type it was kept as. */
const MediaBytes = Type.String({ contentEncoding: 'binary', description: 'The bytes, as kept.' });

export async function mediaRoutes(app: FastifyInstance): Promise<void> {
  const { store, secrets, clock } = app.deps;
  app.get<{ Params: { id: string }; Querystring: { token?: string } }>(
    '/media/:id',
    {
      config: { public: true },
      schema: {
        operationId: 'getMedia',
        summary: 'Fetch a kept medium by its signed link',
        description:
          "A medium of an inbound MMS (or a picture from the softphone), as a message's `media` links to it: no API key, the link's `token` is the permission. An altered or ended link, or a medium past the retention period, is `404`.",
        tags: ['Media'],
        params: Type.Object({ id: Type.String({ description: 'Prefix med_.' }) }),
        querystring: Type.Object({
          token: Type.Optional(Type.String({ description: 'From the link, as it is.' })),
        }),
        response: {
          200: {
            content: Object.fromEntries(
              [...KEPT_TYPES].map((type) => [type, { schema: MediaBytes }]),
            ),
          },
          '4xx': ErrorBody,
        },
      },
    },
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
