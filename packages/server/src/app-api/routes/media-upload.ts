import type { FastifyInstance } from 'fastify';
import { validationError } from '../../domain/errors.ts';
import { bareContentType, MAX_MEDIA_BYTES, mediaRefusal } from '../../domain/media-store.ts';
import { mediaLink } from '../../http/media/media-links.ts';
import { sessionOf } from '../session-auth.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** What the composer's picker attaches: pictures handsets show. */
const PICTURE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

/**
 * `POST /app/api/media`: the composer's picture, its bytes as the body, into the media store
 * (docs/behaviour.md#media); answers the signed link an MMS then carries as a media URL, on
 * SWITCHBOARD_PUBLIC_URL, where the carrier fetches it.
 */
export async function mediaUploadRoutes(app: FastifyInstance): Promise<void> {
  const { changes, secrets, config, clock } = app.deps;
  app.addContentTypeParser(
    PICTURE_TYPES,
    { parseAs: 'buffer', bodyLimit: MAX_MEDIA_BYTES },
    (_request, body, done) => done(null, body),
  );
  app.post(
    '/media',
    { bodyLimit: MAX_MEDIA_BYTES, config: { providerBody: true } },
    async (request, reply) => {
      const { accountId } = sessionOf(request);
      const contentType = bareContentType(request.headers['content-type']);
      const data = request.body;
      if (!Buffer.isBuffer(data) || data.length === 0) {
        throw validationError('body', `Send one picture (${PICTURE_TYPES.join(', ')}).`);
      }
      const refusal = mediaRefusal(contentType, data.length);
      if (refusal) throw validationError('body', refusal);
      const { ids } = await changes.run('storeMedia', {
        accountId,
        items: [{ contentType, data: data.toString('base64') }],
      });
      const url = mediaLink(
        secrets,
        config.publicUrl,
        ids[0]!,
        clock.now() + config.retentionDays * DAY_MS,
      );
      return reply.code(201).send({ url, contentType, size: data.length });
    },
  );
}
