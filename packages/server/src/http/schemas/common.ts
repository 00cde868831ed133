import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_STATUS } from '../../domain/errors.ts';

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
        // Every type an ApiError can carry, so a new one is documented with its status.
        enum: Object.keys(ERROR_STATUS),
      }),
      message: Type.String({ description: 'Human-readable; may change.' }),
      param: Type.Optional(
        Type.String({ description: 'The field, parameter or header the error is about.' }),
      ),
    }),
  },
  { title: 'Error' },
);

/**
 * A path parameter `id`: any text. An id that names nothing on the account is
 * `404 not_found`, whatever its length or shape, never a validation error.
 */
export const IdParams = Type.Object({
  id: Type.String({ description: 'The id the API gave the resource (msg_…, ct_…, whe_…).' }),
});

/**
 * The body of a call that takes no fields (`…/rotate_secret`, `…/retry`): it may be
 * left out, or be `{}`; a field is refused by name, as on every other call.
 */
export const NoBody = Type.Object({}, { additionalProperties: false });
