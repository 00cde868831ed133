import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import {
  SSRF_BLOCKED,
  checkWebhookUrl,
  classifyAddress,
  isAddressAllowed,
  isSsrfBlocked,
} from '../../src/delivery/ssrf-guard.ts';
import { createGuardedDispatcher } from '../../src/delivery/guarded-dispatcher.ts';
import type { AddressKind, Resolver } from '../../src/delivery/ssrf-guard.ts';

/** A resolver answering from a fixed table, counting calls, so no test touches real DNS. */
function fakeResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

describe('classifyAddress', () => {
  // Address and expected kind, three pairs to a line.
  const TABLE = `
    8.8.8.8 public                 1.1.1.1 public                 172.32.0.1 public
    100.128.0.1 public             2606:4700::1111 public         2a00:1450:4001:80b::200e public
    ::ffff:8.8.8.8 public          64:ff9b::8.8.8.8 public        2002:808:808::1 public
    127.0.0.1 loopback             127.255.255.254 loopback       ::1 loopback
    [::1] loopback                 0:0:0:0:0:0:0:1 loopback       [::ffff:127.0.0.1] loopback
    ::ffff:127.0.0.1 loopback      ::ffff:7f00:1 loopback         ::ffff:0:7f00:1 loopback
    ::127.0.0.1 loopback           2002:7f00:1::1 loopback        10.0.0.1 private
    172.16.0.1 private             172.31.255.255 private         192.168.1.1 private
    100.64.0.1 private             100.127.255.255 private        ::ffff:10.1.2.3 private
    64:ff9b::10.0.0.1 private      64:ff9b:1::1 private           fc00::1 private
    fd12:3456::1 private           fec0::1 private                169.254.1.1 link_local
    fe80::1 link_local             fe80::1%eth0 link_local        febf::1 link_local
    169.254.169.254 metadata       100.100.100.200 metadata       fd00:ec2::254 metadata
    ::ffff:a9fe:a9fe metadata      64:ff9b::a9fe:a9fe metadata    224.0.0.1 multicast
    239.255.255.250 multicast      ff02::1 multicast              0.0.0.0 unspecified
    :: unspecified                 0.1.2.3 reserved               192.0.0.1 reserved
    192.0.2.1 reserved             198.18.0.1 reserved            198.19.255.255 reserved
    198.51.100.7 reserved          203.0.113.9 reserved           240.0.0.1 reserved
    255.255.255.255 reserved       2001:db8::1 reserved           2001:0:4136:e378::1 reserved
    100::1 reserved                4000::1 reserved
  `;
  const words = TABLE.trim().split(/\s+/);
  const cases: [string, AddressKind][] = [];
  for (let i = 0; i + 1 < words.length; i += 2) {
    cases.push([words[i] as string, words[i + 1] as AddressKind]);
  }
  assert.equal(words.length % 2, 0, 'the table holds pairs');
  for (const [ip, kind] of cases) {
    test(`${ip} is ${kind}`, () => {
      assert.equal(classifyAddress(ip), kind);
    });
  }

  test('a host name or malformed address is not classified', () => {
    for (const value of ['localhost', 'example.com', '', '1.2.3', '127.1', '1:2:3:4:5:6:7:8:9']) {
      assert.throws(() => classifyAddress(value), TypeError, value);
    }
  });

  test('only public addresses are allowed by default; metadata never is', () => {
    assert.equal(isAddressAllowed('public', false), true);
    assert.equal(isAddressAllowed('loopback', false), false);
    assert.equal(isAddressAllowed('private', false), false);
    assert.equal(isAddressAllowed('loopback', true), true);
    assert.equal(isAddressAllowed('private', true), true);
    assert.equal(isAddressAllowed('metadata', true), false);
  });
});

describe('checkWebhookUrl', () => {
  const strict = { allowPrivate: false } as const;
  const relaxed = { allowPrivate: true } as const;

  test('http:// is refused unless private endpoints are allowed', async () => {
    const result = await checkWebhookUrl('http://hooks.example/x', {
      ...strict,
      resolve: fakeResolver({ 'hooks.example': ['93.184.215.14'] }),
    });
    assert.deepEqual(result, { ok: false, reason: 'url must use https://' });
  });

  test('other schemes and non-URLs are refused even with private endpoints allowed', async () => {
    for (const url of ['ftp://127.0.0.1/', 'file:///etc/passwd', 'not a url', '/relative']) {
      assert.equal((await checkWebhookUrl(url, relaxed)).ok, false, url);
    }
  });

  test('credentials in the URL are refused', async () => {
    const result = await checkWebhookUrl('https://user:pw@127.0.0.1/', relaxed);
    assert.deepEqual(result, { ok: false, reason: 'url must not contain credentials' });
  });

  test('a host name resolving to loopback is refused', async () => {
    const result = await checkWebhookUrl('https://localhost/hook', strict);
    assert.equal(result.ok, false);
    assert.match((result as { reason: string }).reason, /loopback/);
  });

  test('IP-literal hosts are classified directly', async () => {
    const resolve = fakeResolver({});
    for (const url of [
      'https://127.0.0.1/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://0x7f.1/',
      'https://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1:8443/',
    ]) {
      assert.equal((await checkWebhookUrl(url, { ...strict, resolve })).ok, false, url);
    }
    assert.deepEqual(resolve.calls, []);
  });

  test('a host is refused when any one of its addresses is not public', async () => {
    const resolve = fakeResolver({ 'mixed.example': ['93.184.215.14', '10.0.0.7'] });
    const result = await checkWebhookUrl('https://mixed.example/', { ...strict, resolve });
    assert.deepEqual(result, {
      ok: false,
      reason: 'url host mixed.example resolves to a private address (10.0.0.7)',
    });
  });

  test('a host resolving only to public addresses is accepted', async () => {
    const resolve = fakeResolver({ 'hooks.example': ['93.184.215.14', '2606:2800:21f:cb07::1'] });
    assert.deepEqual(await checkWebhookUrl('https://hooks.example/in', { ...strict, resolve }), {
      ok: true,
    });
  });

  test('a host that does not resolve, or resolves too slowly, is refused', async () => {
    const missing = await checkWebhookUrl('https://nowhere.example/', {
      ...strict,
      resolve: fakeResolver({}),
    });
    assert.equal(missing.ok, false);
    const slow = await checkWebhookUrl('https://slow.example/', {
      ...strict,
      resolve: () => new Promise(() => {}),
      resolveTimeoutMs: 20,
    });
    assert.equal(slow.ok, false);
  });

  test('private endpoints are accepted when allowed, over http too', async () => {
    for (const url of ['http://127.0.0.1:3000/hook', 'https://localhost/', 'http://[::1]/']) {
      assert.deepEqual(await checkWebhookUrl(url, relaxed), { ok: true }, url);
    }
  });

  test('cloud metadata is refused even when private endpoints are allowed', async () => {
    assert.equal((await checkWebhookUrl('http://169.254.169.254/', relaxed)).ok, false);
    assert.equal((await checkWebhookUrl('http://[fd00:ec2::254]/', relaxed)).ok, false);
  });
});

describe('guarded dispatcher', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  let lastHost: string | undefined;

  before(async () => {
    server = createServer((req, res) => {
      lastHost = req.headers.host;
      res.end('reached');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function send(url: string, options: Parameters<typeof createGuardedDispatcher>[0]) {
    const dispatcher = createGuardedDispatcher(options);
    try {
      const res = await request(url, { method: 'POST', body: '{}', dispatcher });
      return { status: res.statusCode, body: await res.body.text() };
    } finally {
      await dispatcher.destroy();
    }
  }

  async function assertBlocked(
    url: string,
    options: Parameters<typeof createGuardedDispatcher>[0],
  ) {
    const before = connections;
    await assert.rejects(send(url, options), (err: Error & { code?: string }) => {
      assert.equal(err.code, SSRF_BLOCKED);
      assert.equal(isSsrfBlocked(err), true);
      return true;
    });
    assert.equal(connections, before, 'the server must see no connection');
  }

  test('a request to a loopback IP literal is refused before connecting', async () => {
    await assertBlocked(`http://127.0.0.1:${port}/hook`, { allowPrivate: false });
  });

  test('a request to an IPv6 loopback literal is refused', async () => {
    await assertBlocked(`http://[::1]:${port}/hook`, { allowPrivate: false });
    await assertBlocked(`http://[::ffff:127.0.0.1]:${port}/hook`, { allowPrivate: false });
  });

  test('a host name resolving to loopback is refused before connecting', async () => {
    await assertBlocked(`http://localhost:${port}/hook`, { allowPrivate: false });
  });

  test('a host that rebinds to loopback after the creation check is refused at connect time', async () => {
    let calls = 0;
    const resolve: Resolver = async () => [
      { address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 },
    ];
    const created = await checkWebhookUrl('https://rebind.example/hook', {
      allowPrivate: false,
      resolve,
    });
    assert.deepEqual(created, { ok: true });
    await assertBlocked(`http://rebind.example:${port}/hook`, { allowPrivate: false, resolve });
    assert.equal(calls, 2);
  });

  test('one non-public address among several blocks the connection', async () => {
    const resolve = fakeResolver({ 'mixed.example': ['93.184.215.14', '127.0.0.1'] });
    await assertBlocked(`http://mixed.example:${port}/hook`, { allowPrivate: false, resolve });
  });

  test('with private endpoints allowed the same request reaches the server', async () => {
    const before = connections;
    const res = await send(`http://127.0.0.1:${port}/hook`, { allowPrivate: true });
    assert.deepEqual(res, { status: 200, body: 'reached' });
    assert.equal(connections, before + 1);
  });

  test('the connection goes to the address the guard resolved, once, under the original host name', async () => {
    const resolve = fakeResolver({ 'hooks.test': ['127.0.0.1'] });
    const res = await send(`http://hooks.test:${port}/hook`, { allowPrivate: true, resolve });
    assert.deepEqual(res, { status: 200, body: 'reached' });
    assert.deepEqual(resolve.calls, ['hooks.test']);
    assert.equal(lastHost, `hooks.test:${port}`);
  });

  test('cloud metadata stays blocked with private endpoints allowed', async () => {
    const resolve = fakeResolver({ 'metadata.test': ['169.254.169.254'] });
    await assertBlocked(`http://metadata.test:${port}/`, { allowPrivate: true, resolve });
  });
});

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('guarded dispatcher over TLS', { skip: hasOpenssl ? false : 'openssl not found' }, () => {
  let dir: string;
  let cert: string;
  let server: ReturnType<typeof createTlsServer>;
  let port = 0;
  let sni: string | false | null | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ssrf-guard-'));
    // A throwaway certificate for "localhost", made per run so no key is kept in the repository.
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
        ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1'],
        ...['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'],
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    server = createTlsServer({ cert, key: readFileSync(join(dir, 'key.pem')) }, (req, res) => {
      sni = (req.socket as TLSSocket).servername;
      res.end('secure');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  test('TLS sends the original host name as SNI and verifies the certificate against it', async () => {
    const resolve = fakeResolver({ localhost: ['127.0.0.1'] });
    const dispatcher = createGuardedDispatcher({ allowPrivate: true, resolve, ca: cert });
    try {
      const res = await request(`https://localhost:${port}/`, { dispatcher });
      assert.equal(await res.body.text(), 'secure');
      assert.equal(sni, 'localhost');
    } finally {
      await dispatcher.destroy();
    }
  });

  test('a certificate for another name is rejected although the address is the same', async () => {
    const resolve = fakeResolver({ 'other.test': ['127.0.0.1'] });
    const dispatcher = createGuardedDispatcher({ allowPrivate: true, resolve, ca: cert });
    try {
      await assert.rejects(request(`https://other.test:${port}/`, { dispatcher }), {
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      });
    } finally {
      await dispatcher.destroy();
    }
  });
});
