import fc from 'fast-check';
import { EVENT_TYPES } from '../../src/commands/record-event.ts';
import type { Operation } from './openapi-operations.ts';
import type { PropertyWorld } from './property-world.ts';
import type { Owner } from './request-cases.ts';
import { someText, valuesOf, type FieldHints } from './schema-arbitraries.ts';

/** Webhook URLs that need no DNS: the suite's network is 127.0.0.1 and ::1 only. */
const LOOPBACK_URLS = [
  'http://127.0.0.1:9/hooks',
  'https://127.0.0.1/hooks?x=1',
  'http://[::1]:9/',
  'http://localhost:9/hooks',
];
/** Webhook URLs the service refuses, none of them needing DNS either. */
const REFUSED_URLS = [
  'ftp://127.0.0.1/hooks',
  'https://user:secret@127.0.0.1/',
  'http://169.254.169.254/latest/meta-data',
  'http://0.0.0.0/',
  ' http://127.0.0.1:9/hooks',
  'http://127.0.0.1:9/a\tb',
  '127.0.0.1',
  '',
];

/**
 * The few outside numbers typical bodies text and hear from: few, so that a STOP, a
 * group and a send to the same number meet within a run.
 */
const NEIGHBOURS = ['+14155550101', '+14155550102', '+14155550103', '+15005550002'];

/** Bodies of each operation that are valid, or nearly. */
export interface ValidBodies {
  /** From the operation's schema, with the values a schema cannot know. */
  fromSchema(operation: Operation): fc.Arbitrary<unknown>;
  /** As clients write them, the fields that belong together, together; null if none is written. */
  typical(operation: Operation): fc.Arbitrary<unknown> | null;
}

/**
 * Valid-looking bodies for `world`: the account's numbers, real conversation ids and
 * loopback webhook URLs where the schema only says "a string".
 */
export function validBodiesOf(world: PropertyWorld): ValidBodies {
  const { actor, other, ids } = world;
  const own = fc.constantFrom(...actor.testNumbers, world.liveNumber);
  const ownTest = fc.constantFrom(...actor.testNumbers);
  const neighbour = fc.constantFrom(...NEIGHBOURS);
  const phone = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 100, max: 199 }).map((n) => `+14155550${n}`) },
    { weight: 2, arbitrary: own },
    { weight: 2, arbitrary: neighbour },
    { weight: 1, arbitrary: fc.constantFrom('+15005550001', '+15005550003') },
    { weight: 1, arbitrary: fc.constantFrom(...other.testNumbers) },
    { weight: 1, arbitrary: fc.constantFrom('+1', '4155550100', '+1 415 555 0100', '') },
  );
  const keyword = fc.constantFrom('STOP', 'stop!', 'START', 'Unstop', 'HELP', ' help ', 'Cancel');
  const text = fc.oneof({ weight: 4, arbitrary: someText(160) }, keyword);
  const conversation = fc.oneof(
    fc.nat().map((n) => ids.pick(['test', 'live', 'other'][n % 3] as Owner, 'cv', n)),
    fc.constantFrom('cv_none', ''),
  );
  const testConversation = fc.nat().map((n) => ids.pick('test', 'cv', n));
  const media = (urls: string[]) => fc.array(fc.constantFrom(...urls), { maxLength: 2 });
  const httpsMedia = media(['https://example.com/a.jpg', 'https://example.com/b.pdf']);
  const hints: FieldHints = {
    from: fc.oneof({ weight: 4, arbitrary: own }, phone),
    to: fc.oneof({ weight: 3, arbitrary: phone }, fc.array(phone, { minLength: 1, maxLength: 4 })),
    body: text,
    conversationId: conversation,
    addParticipants: fc.array(phone, { maxLength: 3 }),
    removeParticipants: fc.array(phone, { maxLength: 3 }),
    mediaUrls: media(['https://example.com/a.jpg', 'http://example.com/c.png']),
    phone,
    url: fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...LOOPBACK_URLS) },
      fc.constantFrom(...REFUSED_URLS),
    ),
    events: fc.oneof(
      { weight: 4, arbitrary: fc.subarray([...EVENT_TYPES], { minLength: 1 }) },
      fc.array(fc.constantFrom(...EVENT_TYPES, 'message.sent', 'MESSAGE.RECEIVED', ''), {
        maxLength: 4,
      }),
    ),
    type: fc.constantFrom(...EVENT_TYPES, 'message.sent', ''),
  };
  // An inbound text or call is to one of the account's numbers, and from anyone.
  // Inbound media are fetched: loopback URLs where nothing listens (not kept, and why), no DNS.
  const inboundMedia = media(['http://127.0.0.1:9/a.jpg', 'https://[::1]:9/b.pdf']);
  const inboundHints = {
    ...hints,
    to: fc.oneof({ weight: 4, arbitrary: own }, phone),
    from: phone,
    mediaUrls: fc.oneof(inboundMedia, media(['ftp://127.0.0.1/c.png'])),
  };
  const typical: Record<string, fc.Arbitrary<unknown>> = {
    sendMessage: fc.oneof(
      fc.record(
        {
          from: ownTest,
          to: fc.oneof(neighbour, fc.uniqueArray(neighbour, { minLength: 2, maxLength: 3 })),
          body: text,
          senderName: someText(40),
          mediaUrls: httpsMedia,
        },
        { requiredKeys: ['from', 'to', 'body'] },
      ),
      fc.record(
        {
          from: ownTest,
          conversationId: testConversation,
          body: text,
          addParticipants: fc.uniqueArray(neighbour, { maxLength: 2 }),
          removeParticipants: fc.uniqueArray(neighbour, { maxLength: 1 }),
        },
        { requiredKeys: ['from', 'conversationId', 'body'] },
      ),
    ),
    sandboxInbound: fc.oneof(
      { weight: 3, arbitrary: fc.record({ from: neighbour, to: ownTest, body: text }) },
      fc.record(
        {
          from: neighbour,
          to: ownTest,
          body: text,
          mediaUrls: inboundMedia,
          conversationId: testConversation,
        },
        { requiredKeys: ['from', 'to'] },
      ),
    ),
    sandboxCall: fc.record(
      {
        from: neighbour,
        to: ownTest,
        outcome: fc.constantFrom('completed', 'missed'),
        direction: fc.constantFrom('inbound', 'outbound'),
        duration: fc.integer({ min: 0, max: 600 }),
      },
      { requiredKeys: ['from', 'to', 'outcome'] },
    ),
    createContact: fc.record(
      { phone: neighbour, name: someText(60), email: fc.emailAddress(), company: someText(60) },
      { requiredKeys: ['phone'] },
    ),
    createWebhookEndpoint: fc.record(
      {
        url: fc.constantFrom(...LOOPBACK_URLS),
        events: fc.subarray([...EVENT_TYPES], { minLength: 1 }),
        description: someText(100),
        enabled: fc.boolean(),
      },
      { requiredKeys: ['url', 'events'] },
    ),
  };
  return {
    fromSchema(operation) {
      if (!operation.body) return fc.constant({});
      const inbound = ['sandboxInbound', 'sandboxCall'].includes(operation.operationId);
      return valuesOf(operation.body, inbound ? inboundHints : hints);
    },
    typical: (operation) => typical[operation.operationId] ?? null,
  };
}
