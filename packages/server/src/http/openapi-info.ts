import type { Json } from './openapi-schemas.ts';

/** The version of the API description (spec 9). */
export const API_VERSION = '1.0.0';

/** What holds for every call, said once (README, "API overview" and "Errors"). */
const DESCRIPTION = [
  'Send and receive SMS/MMS, keep a shared contact directory and receive signed webhooks.',
  '',
  'Every call carries `Authorization: Bearer sk_test_…` (sandbox) or `sk_live_…`; test and live mode are separate worlds. Bodies are JSON (`Content-Type: application/json`, at most 256 KiB, not compressed).',
  '',
  'Every failure answers `{"error": {"type", "message", "param?"}}` (the `Error` schema) with the status its `type` implies, and every response carries a `request-id` header. A method a documented path does not offer answers `405` in the same shape, with an `Allow` header listing the methods it does. Every POST accepts an `Idempotency-Key`.',
  '',
  'The MCP tool server for AI agents at `POST /v1/mcp` speaks JSON-RPC (the Model Context Protocol) and is not described here.',
  '',
  'Received media are served at `GET /v1/media/{id}?token=…`, the signed link a message’s `media[].url` gives, without an API key until the retention period ends (`404` once altered or ended). `POST /v1/carriers/{id}/status` and `/inbound` take Twilio’s and Telnyx’s own signed callbacks (`403` unless the provider’s signature verifies) and are not described here.',
].join('\n');

/**
 * The project declares no license yet: the document says so rather than guess one.
 * `LicenseRef-` is SPDX's form for a license without an SPDX id.
 */
const LICENSE = {
  name: 'No license granted (all rights reserved)',
  identifier: 'LicenseRef-Switchboard-Unlicensed',
};

/** Each tag an operation carries, described. */
const TAGS: Json[] = [
  {
    name: 'Messages',
    description:
      'SMS and MMS, one-to-one and group: send, and follow a message from `queued` to `delivered` or `failed`.',
  },
  {
    name: 'Contacts',
    description: 'The shared contact directory; a contact’s name is the caller ID of its number.',
  },
  {
    name: 'Webhooks',
    description:
      'Endpoints that receive signed events, their secrets and their delivery logs, and redelivery on request.',
  },
  {
    name: 'Media',
    description:
      'Media of inbound MMS kept by the service, on signed, expiring links that need no API key.',
  },
  {
    name: 'Carrier callbacks',
    description:
      "What a Twilio or Telnyx connection's provider posts: statuses of sent messages and inbound texts, verified by the provider's signature instead of an API key.",
  },
  {
    name: 'Sandbox',
    description:
      'Test keys only: make the sandbox carrier report an inbound text or a call, as a real carrier would.',
  },
  {
    name: 'Webhook events',
    description:
      'What Switchboard POSTs to an endpoint for each subscribed event, signed with its secret.',
  },
];

/** The document's `info`, `servers`, `tags` and security schemes. */
export function documentHeader(): {
  info: Json;
  servers: Json[];
  tags: Json[];
  securitySchemes: Json;
} {
  return {
    info: {
      title: 'Switchboard API',
      version: API_VERSION,
      description: DESCRIPTION,
      // Self-hosted: whoever runs this server answers for it.
      contact: { name: 'The operator of this Switchboard server' },
      license: LICENSE,
    },
    servers: [{ url: '/v1', description: 'This server: the API is served under /v1.' }],
    tags: TAGS,
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key: sk_test_… (sandbox) or sk_live_….',
      },
    },
  };
}
