import { Type, type TSchema } from '@sinclair/typebox';

/** `T` or `null`, written as a JSON Schema type array (OpenAPI 3.1 style). */
export function Nullable<T extends TSchema>(schema: T) {
  const { type } = schema as unknown as { type: string };
  return Type.Unsafe<T['static'] | null>({ ...schema, type: [type, 'null'] });
}

/** An E.164 phone number. */
export const E164 = Type.String({
  pattern: '^\\+[1-9][0-9]{6,14}$',
  description: 'E.164 number: +, country code and number, no spaces (e.g. +14155550100).',
  examples: ['+14155550100'],
});

/** A UTC timestamp. */
export const DateTime = Type.String({ format: 'date-time' });

/** The error body every failure answers with. */
export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      type: Type.String({
        description: 'Stable machine-readable error type; branch on this.',
        enum: [
          'invalid_request',
          'unauthorized',
          'not_found',
          'method_not_allowed',
          'idempotency_conflict',
          'validation_error',
          'recipient_opted_out',
          'rate_limited',
          'internal_error',
          'service_unavailable',
        ],
      }),
      message: Type.String({ description: 'Human-readable; may change.' }),
      param: Type.Optional(Type.String({ description: 'The field that failed validation.' })),
    }),
  },
  { title: 'Error' },
);

/**
 * A resource's id in the path. Any text: an id that names nothing on the account
 * is `404 not_found`, whatever its length or shape, never a validation error.
 */
export const PathId = Type.String({ description: 'The id, as the resource gave it.' });

/** A path parameter `id`. */
export const IdParams = Type.Object({ id: PathId });

/**
 * The body of a call that takes no fields (`…/rotate_secret`, `…/retry`): it may be
 * left out, or be `{}`; a field is refused by name, as on every other call.
 */
export const NoBody = Type.Object({}, { additionalProperties: false });
