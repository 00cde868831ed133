import assert from 'node:assert/strict';
import fc from 'fast-check';
import { addNumber } from '../../src/commands/add-number.ts';
import type { Engine } from '../../src/store/engine/capabilities.ts';
import { startTestApp, type TestAccount, type TestApp } from './app.ts';
import type { ApiClient } from './http.ts';
import type { Json, Operation } from './openapi-operations.ts';
import type { Owner } from './request-cases.ts';
import { validBodiesOf } from './valid-bodies.ts';

/** A live number of the actor account (live mode takes any E.164 number). */
const LIVE_NUMBER = '+14155550999';

/**
 * The ids each owner has, by prefix: seeded with fixtures and grown with every id a
 * success answers with, so later requests also name what earlier ones created.
 */
export class IdRegistry {
  readonly #ids = new Map<string, string[]>();

  add(owner: Owner, id: unknown): void {
    if (typeof id !== 'string') return;
    const prefix = id.slice(0, id.indexOf('_'));
    if (!prefix) return;
    const list = this.#ids.get(`${owner} ${prefix}`) ?? [];
    if (!list.includes(id)) list.push(id);
    this.#ids.set(`${owner} ${prefix}`, list);
  }

  /** Every id in a success body (`id`, `conversationId`, `endpointId`, `data[].id`); a deleted one goes. */
  addFrom(owner: Owner, body: Json | undefined): void {
    if (!body || typeof body !== 'object') return;
    if (body.deleted === true && typeof body.id === 'string') {
      const list = this.#ids.get(`${owner} ${body.id.slice(0, body.id.indexOf('_'))}`) ?? [];
      const at = list.indexOf(body.id);
      if (at >= 0) list.splice(at, 1);
      return;
    }
    for (const key of ['id', 'conversationId', 'endpointId', 'eventId']) this.add(owner, body[key]);
    if (Array.isArray(body.data)) for (const item of body.data) this.addFrom(owner, item);
  }

  /** The `pick`th id of `owner` with `prefix` (wrapping), or one that names nothing. */
  pick(owner: Owner, prefix: string, pick: number): string {
    const list = this.#ids.get(`${owner} ${prefix}`) ?? [];
    return list.length > 0 ? list[pick % list.length]! : `${prefix}_none`;
  }
}

/** The app the properties run against, its actors and what they own. */
export interface PropertyWorld {
  t: TestApp;
  port: number;
  document: Json;
  actor: TestAccount;
  other: TestAccount;
  /** The actor's one live-mode number. */
  liveNumber: string;
  keys: Record<Owner, string>;
  ids: IdRegistry;
  /** Valid-looking bodies of `operation`: from its schema, and as a client would write them. */
  validBodies(operation: Operation): fc.Arbitrary<unknown>;
  /** Only as a client would write them (null when none are written for `operation`). */
  typicalBodies(operation: Operation): fc.Arbitrary<unknown> | null;
}

async function seed(client: ApiClient, owner: Owner, ids: IdRegistry, from: string): Promise<void> {
  const created = async (path: string, body: unknown) => {
    const res = await client.post(path, body);
    assert.ok(res.status >= 200 && res.status < 300, `fixture ${path}: ${res.status} ${res.text}`);
    ids.addFrom(owner, res.body);
    return res.body;
  };
  await created('/v1/contacts', { phone: '+14155550142', name: 'Ada' });
  await created('/v1/messages', { from, to: '+14155550143', body: 'Hello' });
  await created('/v1/messages', { from, to: ['+14155550144', '+14155550145'], body: 'Team' });
  const endpoint = await created('/v1/webhook_endpoints', {
    url: 'http://127.0.0.1:9/hooks',
    events: ['contact.created', 'message.received'],
  });
  await created(`/v1/webhook_endpoints/${endpoint.id}/test`, {});
}

/**
 * Starts the app with nothing running in the background (only requests change the
 * database), two accounts, and resources of each owner to name in paths and bodies.
 */
export async function startPropertyWorld(engine: Engine): Promise<PropertyWorld> {
  const t = await startTestApp(engine, {
    background: false,
    // Loopback webhook URLs are accepted without a DNS query: no request leaves the machine.
    env: { SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE: '1' },
  });
  const actor = await t.newAccount('Actor');
  const other = await t.newAccount('Other');
  await t.store.write((tx) =>
    addNumber(
      tx,
      { accountId: actor.accountId, mode: 'live', phone: LIVE_NUMBER },
      { clock: { now: Date.now } },
    ),
  );
  const ids = new IdRegistry();
  await seed(actor.test, 'test', ids, actor.testNumbers[0]!);
  await seed(actor.live, 'live', ids, LIVE_NUMBER);
  await seed(other.test, 'other', ids, other.testNumbers[0]!);
  const document = (await t.client(null).get('/v1/openapi.json')).body as Json;
  const port = Number(new URL(t.url).port);

  const world: PropertyWorld = {
    t,
    port,
    document,
    actor,
    other,
    liveNumber: LIVE_NUMBER,
    keys: { test: actor.testKey, live: actor.liveKey, other: other.testKey },
    ids,
    validBodies: () => fc.constant({}),
    typicalBodies: () => null,
  };
  const bodies = validBodiesOf(world);
  world.typicalBodies = bodies.typical;
  world.validBodies = (operation) => {
    const typical = bodies.typical(operation);
    const fromSchema = bodies.fromSchema(operation);
    return typical ? fc.oneof(fromSchema, { weight: 2, arbitrary: typical }) : fromSchema;
  };
  return world;
}
