import { Type, type Static } from '@sinclair/typebox';
import { DateTime, E164, Nullable } from './common.ts';

/** Body of `POST /v1/contacts`. */
export const CreateContactBody = Type.Object(
  {
    // The E.164 rule is checked by the command, which words the error for people.
    phone: Type.String({ description: E164.description, examples: E164.examples }),
    name: Type.Optional(
      Type.String({ maxLength: 200, description: 'Display name for caller ID.' }),
    ),
    email: Type.Optional(Type.String({ maxLength: 320, format: 'email' })),
    company: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false, title: 'ContactCreate' },
);
export type CreateContactBody = Static<typeof CreateContactBody>;

/** A Contact (spec 2.4). */
export const Contact = Type.Object(
  {
    id: Type.String({ description: 'Prefix ct_.' }),
    object: Type.Literal('contact'),
    name: Nullable(Type.String()),
    phone: Type.String(),
    email: Nullable(Type.String()),
    company: Nullable(Type.String()),
    createdAt: DateTime,
  },
  { title: 'Contact' },
);
