import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { ENGINES } from '../support/engines.ts';

type Json = Record<string, any>;

/** Follows a local `$ref` (`#/components/schemas/X`) to the schema it names. */
function resolve(document: Json, schema: Json): Json {
  if (typeof schema.$ref !== 'string') return schema;
  const path = schema.$ref.replace(/^#\//, '').split('/');
  let node: any = document;
  for (const part of path) node = node?.[part];
  assert.ok(node, `${schema.$ref} resolves`);
  return node as Json;
}

for (const engine of ENGINES) {
  describe(`discovery [${engine}]`, () => {
    let t: TestApp;
    let acct: TestAccount;
    let doc: Json;
    before(async () => {
      t = await startTestApp(engine);
      acct = await t.newAccount();
      const res = await t.client(null).get('/v1/openapi.json');
      assert.equal(res.status, 200, res.text);
      doc = res.body;
    });
    after(() => t.close());

    test('GET /v1/openapi.json answers 200 JSON without an API key', async () => {
      const res = await t.client(null).get('/v1/openapi.json');
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.match(res.headers.get('request-id') ?? '', /^req_/);
    });

    test('GET /v1/openapi.json ignores a bad API key rather than refusing the document', async () => {
      const res = await t.client('sk_test_notakey').get('/v1/openapi.json');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, doc);
    });

    test('the document is OpenAPI 3.1.0 describing API version 1.0.0', () => {
      assert.equal(doc.openapi, '3.1.0');
      assert.equal(doc.info.version, '1.0.0');
      assert.equal(typeof doc.info.title, 'string');
      assert.ok(doc.info.title.length > 0);
    });

    test('POST /contacts is documented with a strict request schema requiring phone', () => {
      const operation = doc.paths?.['/contacts']?.post;
      assert.ok(operation, 'POST /contacts is documented');
      assert.equal(operation.operationId, 'createContact');
      const content = operation.requestBody?.content?.['application/json'];
      assert.ok(content, 'the request body is application/json');
      const schema = resolve(doc, content.schema);
      assert.equal(schema.type, 'object');
      assert.equal(schema.additionalProperties, false);
      assert.deepEqual(schema.required, ['phone']);
      assert.deepEqual(Object.keys(schema.properties).sort(), [
        'company',
        'email',
        'name',
        'phone',
      ]);
      assert.equal(schema.properties.phone.type, 'string');
      const created = operation.responses?.['201']?.content?.['application/json']?.schema;
      assert.ok(created, 'the 201 response is documented');
      assert.equal(resolve(doc, created), doc.components.schemas.Contact);
    });

    test('GET /contacts/{id} is documented with its path parameter and the Contact response', () => {
      const operation = doc.paths?.['/contacts/{id}']?.get;
      assert.ok(operation, 'GET /contacts/{id} is documented');
      const id = operation.parameters.find((p: Json) => p.name === 'id');
      assert.ok(id, 'the id parameter is documented');
      assert.equal(id.in, 'path');
      assert.equal(id.required, true);
      const ok = operation.responses?.['200']?.content?.['application/json']?.schema;
      assert.equal(resolve(doc, ok), doc.components.schemas.Contact);
    });

    test('no path is documented with Express-style :params or the /v1 prefix', () => {
      for (const path of Object.keys(doc.paths)) {
        assert.doesNotMatch(path, /:/, path);
        assert.doesNotMatch(path, /^\/v1\//, path);
      }
      assert.ok(
        doc.servers.some((s: Json) => String(s.url).endsWith('/v1')),
        'servers carry the /v1 prefix',
      );
    });

    test('the Contact component describes every field a created contact has', async () => {
      const contact = doc.components?.schemas?.Contact;
      assert.ok(contact, 'components.schemas.Contact exists');
      assert.equal(contact.type, 'object');
      const created = await acct.test.post('/v1/contacts', { phone: '+14155550190' });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(contact.properties).sort(), Object.keys(created.body).sort());
      assert.deepEqual([...contact.required].sort(), Object.keys(created.body).sort());
    });

    test('each operation lists exactly the error statuses it can answer', () => {
      const listed: Record<string, string[]> = {};
      for (const [path, item] of Object.entries<Json>(doc.paths)) {
        for (const [method, operation] of Object.entries<Json>(item)) {
          listed[`${method} ${path}`] = Object.keys(operation.responses).filter((s) => s >= '4');
        }
      }
      // Every call: 400 (format), 401, 429, 500, 503. A path id: 404. A POST: 409 (its
      // Idempotency-Key) and 422 (the key's format). A body: 415. Any input: 422.
      const every = ['400', '401', '429', '500', '503'];
      const read = [...every, '422'];
      const byId = [...every, '404', '422'];
      const write = [...every, '409', '415', '422'];
      const writeById = [...write, '404'];
      const expected: Record<string, string[]> = {
        'post /messages': write,
        'get /messages/{id}': byId,
        'post /contacts': write,
        'get /contacts/{id}': byId,
        'post /webhook_endpoints': write,
        'get /webhook_endpoints': read,
        'get /webhook_endpoints/{id}': byId,
        'post /webhook_endpoints/{id}': writeById,
        'delete /webhook_endpoints/{id}': byId,
        'post /webhook_endpoints/{id}/rotate_secret': writeById,
        'get /webhook_endpoints/{id}/deliveries': byId,
        'post /webhook_endpoints/{id}/deliveries/{deliveryId}/retry': writeById,
        'post /webhook_endpoints/{id}/recover': writeById,
        'post /webhook_endpoints/{id}/test': writeById,
        // A live key has no sandbox: 404.
        'post /sandbox/inbound': writeById,
        'post /sandbox/calls': writeById,
        // No API key: its signed link is the permission.
        'get /media/{id}': ['400', '404', '422', '500', '503'],
        // No API key: the provider's signature (403), no Idempotency-Key; 503 to be posted again.
        'post /carriers/{id}/status': ['400', '403', '404', '415', '422', '500', '503'],
        'post /carriers/{id}/inbound': ['400', '403', '404', '415', '422', '500', '503'],
      };
      for (const statuses of Object.values(expected)) statuses.sort();
      assert.deepEqual(listed, expected);
    });

    test('every failure is documented with the Error component and a request-id header', () => {
      const error = doc.components?.schemas?.Error;
      assert.ok(error, 'components.schemas.Error exists');
      assert.deepEqual(error.required, ['error']);
      assert.deepEqual([...error.properties.error.required].sort(), ['message', 'type']);
      for (const [path, item] of Object.entries<Json>(doc.paths)) {
        for (const [method, operation] of Object.entries<Json>(item)) {
          for (const [status, response] of Object.entries<Json>(operation.responses)) {
            if (status < '4') continue;
            const where = `${method} ${path} ${status}`;
            const failure = resolve(doc, response);
            assert.equal(resolve(doc, failure.content['application/json'].schema), error, where);
            assert.equal(resolve(doc, failure.headers['request-id']).required, true, where);
          }
        }
      }
    });

    test('every success declares its request-id header, and a POST its Idempotent-Replayed header', () => {
      for (const [path, item] of Object.entries<Json>(doc.paths)) {
        for (const [method, operation] of Object.entries<Json>(item)) {
          const successes = Object.entries<Json>(operation.responses).filter(([s]) => s < '4');
          // One success each, but the sandbox call trigger: a record (201) or, with `ring`, a call
          // that is recorded only when it ends (202).
          const expected = operation.operationId === 'sandboxCall' ? 2 : 1;
          assert.equal(successes.length, expected, `${method} ${path} successes`);
          for (const [status, response] of successes) {
            const where = `${method} ${path} ${status}`;
            // JSON, but for a medium, which is its own type.
            const types = Object.keys(response.content);
            assert.ok(response.content[types[0]!].schema, where);
            assert.equal(types.includes('application/json'), operation.operationId !== 'getMedia');
            const keyed = method === 'post' && operation.security === undefined;
            assert.equal(resolve(doc, response.headers['request-id']).required, true, where);
            assert.equal(response.headers['Idempotent-Replayed'] !== undefined, keyed, where);
          }
        }
      }
    });

    test('a 429 declares Retry-After in whole seconds, and a 401 its WWW-Authenticate challenge', () => {
      const limited = resolve(doc, doc.paths['/contacts'].post.responses['429']);
      const retryAfter = resolve(doc, limited.headers['Retry-After']);
      assert.equal(retryAfter.required, true);
      assert.deepEqual(retryAfter.schema, { type: 'integer', minimum: 1 });
      const refused = resolve(doc, doc.paths['/contacts'].post.responses['401']);
      assert.equal(resolve(doc, refused.headers['WWW-Authenticate']).required, true);
    });

    test('every POST with an API key, and only such a POST, takes the shared Idempotency-Key header', () => {
      const shared = { $ref: '#/components/parameters/IdempotencyKey' };
      const key = resolve(doc, shared);
      assert.equal(key.name, 'Idempotency-Key');
      assert.equal(key.in, 'header');
      assert.equal(key.required, false);
      for (const [path, item] of Object.entries<Json>(doc.paths)) {
        for (const [method, operation] of Object.entries<Json>(item)) {
          const takes = operation.parameters.some((p: Json) => p.$ref === shared.$ref);
          // A provider's callback has no key, so no key space to replay answers in.
          const keyed = method === 'post' && operation.security === undefined;
          assert.equal(takes, keyed, `${method} ${path}`);
        }
      }
    });

    test('the document names its license, contact and server, describes every tag it uses, and says what a 405 is', () => {
      assert.equal(typeof doc.info.license?.name, 'string');
      assert.ok(doc.info.license.identifier ?? doc.info.license.url, 'a license id or URL');
      assert.equal(typeof doc.info.contact?.name, 'string');
      assert.match(doc.info.description, /`405`[^.]*`Allow`/);
      const described = new Map(doc.tags.map((tag: Json) => [tag.name, tag.description]));
      const used = new Set<string>();
      for (const section of [doc.paths, doc.webhooks]) {
        for (const item of Object.values<Json>(section)) {
          for (const operation of Object.values<Json>(item)) {
            for (const tag of operation.tags) used.add(tag);
          }
        }
      }
      assert.deepEqual([...used].sort(), [...described.keys()].sort());
      for (const [name, description] of described) assert.ok(description, `${name} is described`);
    });

    test('bearer authentication is the security scheme of the API', () => {
      const schemes = doc.components?.securitySchemes ?? {};
      const bearer = Object.entries(schemes).filter(
        ([, s]: [string, any]) => s.type === 'http' && String(s.scheme).toLowerCase() === 'bearer',
      );
      assert.equal(bearer.length, 1, 'one http bearer scheme');
      const [name] = bearer[0]!;
      assert.ok(
        doc.security?.some((requirement: Json) => name in requirement),
        'the API requires it by default',
      );
    });

    test('every event of the catalog is described under webhooks: signed headers, and an envelope whose data is the resource it carries', async () => {
      const carried: Record<string, string> = {
        'message.received': 'Message',
        'message.delivered': 'Message',
        'message.failed': 'Message',
        'call.completed': 'Call',
        'call.missed': 'Call',
        'contact.created': 'Contact',
      };
      assert.deepEqual(Object.keys(doc.webhooks).sort(), Object.keys(carried).sort());
      for (const [type, resource] of Object.entries(carried)) {
        const operation = doc.webhooks[type].post;
        const headers = operation.parameters.map((p: Json) => [p.in, p.name.toLowerCase()]);
        for (const name of ['x-service-signature', 'webhook-id', 'webhook-signature']) {
          assert.ok(
            headers.some(([where, n]: string[]) => where === 'header' && n === name),
            `${type}: ${name}`,
          );
        }
        const envelope = resolve(doc, operation.requestBody.content['application/json'].schema);
        assert.deepEqual([...envelope.required].sort(), ['createdAt', 'data', 'id', 'type']);
        assert.equal(envelope.properties.type.const, type);
        assert.equal(
          resolve(doc, envelope.properties.data),
          doc.components.schemas[resource],
          `${type} carries a ${resource}`,
        );
      }
    });

    test('every documented request field is one the API accepts, and only those', async () => {
      const schema = resolve(
        doc,
        doc.paths['/contacts'].post.requestBody.content['application/json'].schema,
      );
      const samples: Record<string, string> = {
        phone: '+14155550191',
        name: 'Doc',
        email: 'doc@example.com',
        company: 'Docs Inc',
      };
      const body: Record<string, string> = {};
      for (const field of Object.keys(schema.properties)) {
        assert.ok(field in samples, `a sample for ${field}`);
        body[field] = samples[field]!;
      }
      assert.equal((await acct.test.post('/v1/contacts', body)).status, 201);
      const unknown = await acct.test.post('/v1/contacts', { ...body, undocumented: 'x' });
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.error.param, 'undocumented');
    });

    test('GET /healthz answers 200 without authentication', async () => {
      const res = await t.client(null).get('/healthz');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'ok');
      assert.match(res.headers.get('request-id') ?? '', /^req_/);
    });
  });
}
