import { Type, type Static } from '@sinclair/typebox';
import { DateTime, E164, Nullable } from './common.ts';

// E.164 and body rules are checked by the command, which words the errors for people
// and names the exact field (`to[2]`); the schema fixes the shape.
const Phone = Type.String({ description: E164.description, examples: E164.examples });
const Phones = Type.Array(Phone, { maxItems: 10 });

/** Body of `POST /v1/messages` (spec 2.2). */
export const SendMessageBody = Type.Object(
  {
    from: Type.String({ description: 'A number provisioned on the account, E.164.' }),
    to: Type.Optional(
      Type.Union([Phone, Type.Array(Phone, { minItems: 1, maxItems: 10 })], {
        description:
          'One recipient (a one-to-one thread) or an array of up to 10 (two or more open a group). Omit with conversationId.',
      }),
    ),
    body: Type.Optional(
      Type.String({
        maxLength: 6400,
        description: '1 to 1600 characters after trimming; may be omitted when mediaUrls is given.',
      }),
    ),
    mediaUrls: Type.Optional(
      Type.Array(Type.String({ format: 'uri' }), {
        maxItems: 10,
        description: 'Up to 10 public https:// URLs; their presence makes the message an MMS.',
      }),
    ),
    senderName: Type.Optional(
      Type.String({ maxLength: 100, description: 'Who sent it, shown in the shared inbox.' }),
    ),
    conversationId: Type.Optional(
      Type.String({ maxLength: 64, description: 'Continue an existing conversation (cv_…).' }),
    ),
    addParticipants: Type.Optional({ ...Phones, description: 'Numbers to add to the group.' }),
    removeParticipants: Type.Optional({
      ...Phones,
      description: 'Numbers to remove from later sends.',
    }),
  },
  { additionalProperties: false, required: ['from'], title: 'MessageCreate' },
);
export type SendMessageBody = Static<typeof SendMessageBody>;

/** Body of `POST /v1/sandbox/inbound`. */
export const SandboxInboundBody = Type.Object(
  {
    from: Type.String({ description: 'Any E.164 number: the sender.' }),
    to: Type.String({ description: "One of the account's test numbers." }),
    body: Type.Optional(Type.String({ maxLength: 6400 })),
    mediaUrls: Type.Optional(Type.Array(Type.String({ format: 'uri' }), { maxItems: 10 })),
    conversationId: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'Deliver as a reply in this group conversation (as MMS group headers would).',
      }),
    ),
  },
  { additionalProperties: false, title: 'SandboxInbound' },
);
export type SandboxInboundBody = Static<typeof SandboxInboundBody>;

/** A Message (spec 2.1). */
export const Message = Type.Object(
  {
    id: Type.String({ description: 'Prefix msg_.' }),
    object: Type.Literal('message'),
    from: Type.String(),
    to: Type.Union([Type.String(), Type.Array(Type.String())], {
      description: 'The recipient; for a group message, the array of participants.',
    }),
    body: Type.String(),
    direction: Type.Union([Type.Literal('outbound'), Type.Literal('inbound')]),
    status: Type.Union([
      Type.Literal('queued'),
      Type.Literal('sent'),
      Type.Literal('delivered'),
      Type.Literal('failed'),
    ]),
    segments: Type.Integer({
      description: 'Billable SMS segments (GSM-7 or UCS-2 as carriers count).',
    }),
    conversationId: Type.String({ description: 'Prefix cv_.' }),
    media: Type.Array(
      Type.Object({
        url: Type.String({
          description:
            'Inbound media kept by the service: its signed, expiring link (`/v1/media/{id}?token=…`), fetched without an API key.',
        }),
        contentType: Type.String(),
        size: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
        kept: Type.Optional(Type.Literal(false)),
        reason: Type.Optional(Type.String()),
      }),
    ),
    senderName: Nullable(Type.String()),
    failureReason: Nullable(
      Type.String({
        description: 'invalid_number, carrier_rejected, opted_out or unreachable when failed.',
      }),
    ),
    participants: Type.Optional(
      Type.Array(
        Type.Object({
          phone: Type.String(),
          status: Type.String(),
        }),
        { description: 'Group messages: each participant and its delivery status.' },
      ),
    ),
    createdAt: DateTime,
  },
  { title: 'Message' },
);

/** Body of `POST /v1/sandbox/calls`. */
export const SandboxCallBody = Type.Object(
  {
    from: Type.String(),
    to: Type.String(),
    direction: Type.Optional(Type.Union([Type.Literal('inbound'), Type.Literal('outbound')])),
    outcome: Type.Union([Type.Literal('completed'), Type.Literal('missed')]),
    duration: Type.Optional(Type.Integer({ minimum: 0, maximum: 86400 })),
  },
  { additionalProperties: false, title: 'SandboxCall' },
);
export type SandboxCallBody = Static<typeof SandboxCallBody>;

/** `ring: true`: a real call to the account's softphones instead of a record (voice on). */
export const SandboxRingBody = Type.Object(
  {
    from: Type.String({ description: 'The caller.' }),
    to: Type.String({ description: "The account's test number called." }),
    ring: Type.Literal(true),
  },
  { additionalProperties: false, title: 'SandboxRing' },
);
export type SandboxRingBody = Static<typeof SandboxRingBody>;

/** A sandbox call ringing the softphones; its record comes when it ends. */
export const SandboxRinging = Type.Object(
  {
    object: Type.Literal('sandbox_ring'),
    from: Type.String(),
    to: Type.String(),
    status: Type.Literal('ringing'),
  },
  { title: 'SandboxRinging' },
);

/** A call summary (the `data` of call events). */
export const Call = Type.Object(
  {
    id: Type.String({ description: 'Prefix call_.' }),
    object: Type.Literal('call'),
    from: Type.String(),
    to: Type.String(),
    direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]),
    status: Type.Union([Type.Literal('completed'), Type.Literal('missed')]),
    startedAt: DateTime,
    duration: Type.Integer({ description: 'Whole seconds; 0 for a missed call.' }),
  },
  { title: 'Call' },
);
