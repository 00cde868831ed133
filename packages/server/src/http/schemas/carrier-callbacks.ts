// How the API description shows `POST /v1/carriers/{id}/status|inbound`: bodies as each provider
// posts them (read as sent, for their signatures), answers as each provider expects.
import { Type } from '@sinclair/typebox';
import { ErrorBody } from './common.ts';

const TWILIO_FORM = Type.Record(Type.String(), Type.String(), {
  description:
    "Twilio's form parameters (`MessageSid`, `MessageStatus`, `From`, `To`, `Body`, `NumMedia`, `MediaUrl0`…), signed by `X-Twilio-Signature`.",
});
const TELNYX_EVENT = Type.Object(
  {
    data: Type.Object({ event_type: Type.String(), payload: Type.Object({}) }),
  },
  {
    description:
      'A Telnyx event (`message.sent`, `message.finalized`, `message.received`), signed by `telnyx-signature-ed25519` over `telnyx-timestamp|body`.',
  },
);

const schemaOf = (kind: 'status' | 'inbound') => ({
  operationId: kind === 'status' ? 'carrierStatusCallback' : 'carrierInboundCallback',
  summary:
    kind === 'status'
      ? "A provider's status of a sent message"
      : "A provider's inbound text or MMS",
  description:
    kind === 'status'
      ? 'Moves a message sent through the connection to `sent`, `delivered` or `failed`. A repeat changes nothing; a reference not yet recorded is `503` with `Retry-After`, so the provider posts it again.'
      : "Receives a text as any carrier's: opt-out keywords, caller ID, threading, `message.received`; media fetched into the media store. A repeat (the same provider id) changes nothing.",
  tags: ['Carrier callbacks'],
  params: Type.Object({ id: Type.String({ description: 'The connection, prefix car_.' }) }),
  rawBody: {
    'application/x-www-form-urlencoded': { schema: TWILIO_FORM },
    'application/json': { schema: TELNYX_EVENT },
  },
  response: {
    200: {
      content: {
        'text/xml': { schema: Type.String({ description: "Twilio's: an empty TwiML response." }) },
        'application/json': {
          schema: Type.Object({}, { description: "Telnyx's: an empty object." }),
        },
      },
    },
    403: ErrorBody,
    503: ErrorBody,
    '4xx': ErrorBody,
  },
});

export const CALLBACK_SCHEMAS = { status: schemaOf('status'), inbound: schemaOf('inbound') };
