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

    test('errors are documented with the Error component', () => {
      const error = doc.components?.schemas?.Error;
      assert.ok(error, 'components.schemas.Error exists');
      assert.deepEqual(error.required, ['error']);
      const responses = doc.paths['/contacts'].post.responses;
      const clientError = responses['4XX'] ?? responses['4xx'];
      assert.ok(clientError, '4XX is documented');
      assert.equal(resolve(doc, clientError.content['application/json'].schema), error);
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
