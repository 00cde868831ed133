import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { hasBody } from './content-type.ts';

/** The decoder of each Content-Encoding a request body may have (`identity` is none). */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};
const ACCEPTED = 'gzip, deflate, br or identity';

/** The request's encodings in the order they were applied, or an error naming the one refused. */
function encodingsOf(header: string): string[] {
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  const refused = codings.find((coding) => !(coding in DECODERS));
  if (refused !== undefined) {
    throw new ApiError(
      'invalid_request',
      `Content-Encoding '${refused}' is not accepted; send the body as ${ACCEPTED}.`,
      { param: 'Content-Encoding', status: 415 },
    );
  }
  return codings;
}

/**
 * Passes the decoded body through until it grows past `limit`, then fails.
 * Fastify reads `receivedEncodedLength` (the bytes that arrived, counted by
 * `Arrived`) to check them against `Content-Length`.
 */
class DecodedBody extends Transform {
  receivedEncodedLength = 0;
  #bytes = 0;
  readonly #limit: number;

  constructor(limit: number) {
    super();
    this.#limit = limit;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#bytes += chunk.length;
    if (this.#bytes > this.#limit) {
      done(new ApiError('invalid_request', 'The request body is too large once decoded.'));
      return;
    }
    done(null, chunk);
  }
}

/** Passes the body as it arrived through, counting its bytes for `DecodedBody`. */
class Arrived extends Transform {
  readonly #decoded: DecodedBody;

  constructor(decoded: DecodedBody) {
    super();
    this.#decoded = decoded;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#decoded.receivedEncodedLength += chunk.length;
    done(null, chunk);
  }
}

/**
 * Request bodies sent with `Content-Encoding: gzip`, `deflate` or `br` (or several,
 * in the order applied) are decoded as they arrive, the body limit applying to the
 * decoded size too; a body that does not decode is `400 invalid_request`, and any
 * other encoding `415`. Decoded here, before parsing, so every route gets the body
 * as if it had been sent plain. A request without a body has nothing to decode.
 */
export function registerContentEncoding(app: FastifyInstance): void {
  app.addHook('preParsing', (request: FastifyRequest, _reply, payload, done) => {
    const header = request.headers['content-encoding'];
    if (header === undefined || !hasBody(request)) {
      done(null, payload);
      return;
    }
    let codings: string[];
    try {
      codings = encodingsOf(header);
    } catch (error) {
      done(error as ApiError);
      return;
    }
    if (codings.length === 0) {
      done(null, payload);
      return;
    }
    const decoded = new DecodedBody(request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit!);
    const stages = [new Arrived(decoded), ...[...codings].reverse().map((c) => DECODERS[c]!())];
    // Piped by hand: the request must not be destroyed with them (its socket still
    // carries the answer), and `decoded` fails with the API's own error, since a
    // decoder's would read as a JSON syntax error. (pipeline() lets go of the last
    // decoder once its input ends, before it can tell that input was cut short.)
    const fail = (error: Error) => {
      decoded.destroy(
        error instanceof ApiError
          ? error
          : new ApiError('invalid_request', `The request body is not valid ${codings.join(', ')}.`),
      );
    };
    stages.forEach((stage, i) => {
      stage.on('error', fail);
      stage.pipe(stages[i + 1] ?? decoded);
    });
    // Past the limit the decoders stop with it: a decompression bomb is never decoded whole.
    decoded.on('error', () => {
      for (const stage of stages) stage.destroy();
    });
    // A request cut short fails the body as it would unencoded.
    (payload as Readable).on('error', (error) => decoded.destroy(error)).pipe(stages[0]!);
    done(null, decoded);
  });
}
