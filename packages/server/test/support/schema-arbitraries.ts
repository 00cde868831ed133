import fc from 'fast-check';
import type { Json } from './openapi-operations.ts';

/** Values a field of this name takes instead of what its schema alone would give. */
export type FieldHints = Record<string, fc.Arbitrary<unknown>>;

/**
 * Text as people type it: mostly plain, sometimes any printable character or emoji,
 * sometimes control characters (NUL among them) that no one types but a client may send.
 */
export function someText(maxLength: number): fc.Arbitrary<string> {
  const max = Math.min(maxLength, 60);
  return fc.oneof(
    { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: max }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: max }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: max }) },
    { weight: 1, arbitrary: fc.constantFrom('a\u0000b', '\u0000', 'Ada\u0000', '\t\r\n\u007f') },
  );
}

function stringFor(schema: Json): fc.Arbitrary<string> {
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 200;
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  switch (schema.format) {
    case 'date-time':
      return fc.oneof(
        {
          weight: 3,
          arbitrary: fc
            .date({
              min: new Date('2020-01-01T00:00:00Z'),
              max: new Date('2030-01-01T00:00:00Z'),
              noInvalidDate: true,
            })
            .map((date) => date.toISOString()),
        },
        // Forms a date-time format lets through that are easy to misread.
        fc.constantFrom(
          '2016-12-31T23:59:60Z',
          '2017-01-01T00:59:60+01:00',
          '2020-01-01T00:00:00+01',
          '2020-01-01T00:00:00+0130',
          '2020-01-01 00:00:00z',
          '2020-01-01\t00:00:00Z',
          '2020-01-01T00:00:00.123456789Z',
          '2020-02-29T00:00:00Z',
          '0000-01-01T00:00:00Z',
          '9999-12-31T23:59:59Z',
        ),
      );
    case 'email':
      return fc.emailAddress().filter((email) => email.length <= maxLength);
    case 'uri':
      // Never fetched by the service: any host will do.
      return fc.webUrl({ validSchemes: ['https'] });
  }
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
  return someText(maxLength).filter((s) => s.length >= minLength && s.length <= maxLength);
}

/**
 * Values `schema` accepts, as far as its keywords say (`const`, `enum`, `anyOf`, types,
 * lengths, formats, `required`); a property named in `hints` takes the hint's values
 * instead, where a schema says too little (a number the account owns, a real id).
 */
export function valuesOf(schema: Json, hints: FieldHints = {}): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.anyOf)) {
    return fc.oneof(...(schema.anyOf as Json[]).map((branch) => valuesOf(branch, hints)));
  }
  if (Array.isArray(schema.type)) {
    return fc.oneof(...(schema.type as string[]).map((type) => valuesOf({ ...schema, type })));
  }
  switch (schema.type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({
        min: schema.minimum ?? -1_000_000,
        max: schema.maximum ?? 1_000_000,
      });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valuesOf(schema.items ?? {}, hints), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const fields = Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [
          name,
          hints[name] ?? valuesOf(property, hints),
        ]),
      );
      return fc.record(fields, { requiredKeys: (schema.required ?? []) as string[] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
