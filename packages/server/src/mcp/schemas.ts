import * as z from 'zod';

// What a model reads before it calls a tool. The shapes fix types, required
// fields and the same length limits as the REST schemas; the rules themselves
// (E.164, which numbers may send, opt-outs, 1–1600 characters) are checked by the
// commands, so a mistake comes back as the API's own `validation_error` naming
// the field, exactly as over REST.

const E164 =
  'E.164 format: a plus sign, the country code and the subscriber number, with no spaces, dashes or brackets.';

/** Input of `send_text`. Unknown fields are refused, so `text` for `body` is caught. */
export const SendTextInput = z.strictObject({
  from: z
    .string()
    .describe(
      `The sending number. It must be a number of this account (with a test key, one of the account's sandbox numbers, which look like +1NPA55501XX), in ${E164}`,
    )
    .meta({ examples: ['+14155550100'] }),
  to: z
    .string()
    .describe(`The one recipient's phone number, in ${E164} It must differ from from.`)
    .meta({ examples: ['+14155552671', '+447700900123'] }),
  body: z
    .string()
    .max(6400)
    .describe(
      'The text to send: 1 to 1600 characters after trimming. Texts over 160 GSM-7 characters (70 with emoji or non-Latin scripts) go out as several billed segments.',
    ),
  idempotencyKey: z
    .string()
    .max(255)
    .optional()
    .describe(
      'Optional, recommended whenever the call might be retried: a unique string of up to 255 visible ASCII characters, such as a UUID. Within 24 hours, a repeat with the same key and the same from/to/body returns the first message instead of sending again; the same key with other arguments fails with idempotency_conflict.',
    ),
});

/** Input of `create_contact`. */
export const CreateContactInput = z.strictObject({
  phone: z
    .string()
    .describe(`The contact's phone number, in ${E164}`)
    .meta({ examples: ['+14155552671'] }),
  name: z
    .string()
    .max(200)
    .optional()
    .describe('Display name, shown as caller ID for this number.')
    .meta({ examples: ['Ada Lovelace'] }),
  email: z
    .string()
    .max(320)
    .optional()
    .describe('Email address.')
    .meta({ examples: ['ada@example.com'] }),
  company: z.string().max(200).optional().describe('Company or organisation.'),
});

/** Input of `get_message_status`. */
export const GetMessageStatusInput = z.strictObject({
  id: z
    .string()
    .max(64)
    .describe('The message id, as returned by send_text (it starts with msg_).')
    .meta({ examples: ['msg_01HZX3J6W2Q8YV5T9N4K7M2C1B'] }),
});

const STATUS =
  'queued: accepted, waiting for the carrier. sent: handed to the carrier. delivered: the carrier confirmed delivery to the handset. failed: not delivered; failureReason says why.';

// Output shapes accept fields added later, so a newer server never fails an older
// client's validation of structuredContent.

/** A Message, as the REST API answers it. */
export const MessageOutput = z.looseObject({
  id: z.string().describe('The message id (msg_…); pass it to get_message_status.'),
  object: z.literal('message'),
  from: z.string(),
  to: z
    .union([z.string(), z.array(z.string())])
    .describe('The recipient; for a group message, the participants.'),
  body: z.string(),
  direction: z.enum(['outbound', 'inbound']),
  status: z.enum(['queued', 'sent', 'delivered', 'failed']).describe(STATUS),
  segments: z.int().min(0).describe('Billable SMS segments.'),
  conversationId: z.string().describe('The thread this message belongs to (cv_…).'),
  media: z.array(z.looseObject({ url: z.string(), contentType: z.string() })),
  senderName: z.string().nullable(),
  failureReason: z
    .string()
    .nullable()
    .describe(
      'Set when failed: invalid_number, carrier_rejected, opted_out (the recipient texted STOP) or unreachable.',
    ),
  participants: z
    .array(z.looseObject({ phone: z.string(), status: z.string() }))
    .optional()
    .describe('Group messages only: each participant and how far the message got to them.'),
  createdAt: z.string().describe('ISO 8601 time the message was accepted.'),
});

/** A Contact, as the REST API answers it. */
export const ContactOutput = z.looseObject({
  id: z.string().describe('The contact id (ct_…).'),
  object: z.literal('contact'),
  name: z.string().nullable(),
  phone: z.string(),
  email: z.string().nullable(),
  company: z.string().nullable(),
  createdAt: z.string().describe('ISO 8601 time the contact was created.'),
});

/** What each tool does, worded for a model choosing between them. */
export const DESCRIPTIONS = {
  send_text:
    'Send an SMS text message from one of this account\'s phone numbers to one recipient. Success means the message was accepted and queued (status "queued"), not that it was delivered: delivery happens afterwards, so call get_message_status with the returned id to follow it to "delivered" or "failed". Fails with recipient_opted_out when the recipient has texted STOP to this account, and with validation_error (naming the field in param) when a number is not E.164, from is not one of this account\'s numbers, to equals from, or body is empty or over 1600 characters. Pass an idempotencyKey whenever you might retry, so a retry never texts twice.',
  create_contact:
    "Add a person to this account's shared contact directory. The name becomes the caller ID shown for that phone number in the inbox. Several contacts may share a number (the newest wins for caller ID), so look before adding a duplicate. Fails with validation_error when phone is not E.164 or email is not an address.",
  get_message_status: `Look up a message by its id (msg_…, as returned by send_text) and report where it is now, with the whole message. ${STATUS} Statuses only move forward; if a message is still queued or sent, check again a few seconds later. An id that does not exist for this account (or belongs to the other mode, test or live) is not_found.`,
} as const;

/** Told to the client at connection time: what this server is and how its tools fit together. */
export const INSTRUCTIONS =
  'Switchboard is a business phone number service. send_text sends an SMS from one of the account\'s numbers and returns the queued message; get_message_status follows it until it is delivered or failed; create_contact names a phone number in the shared directory. Phone numbers are always E.164 (+14155552671). Failed calls return isError with a JSON body {"error": {"type", "message", "param"}}, the same errors as the REST API.';
