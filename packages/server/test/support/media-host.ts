// A media host for tests: a node:http server on 127.0.0.1 serving what a handset sends.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The 1x1 PNG a handset might send. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const BIG = Buffer.alloc(5 * 1024 * 1024 + 1, 0xff);

export interface MediaHost {
  url: string;
  server: Server;
  /** The Authorization of each request for a Twilio medium. */
  auths: string[];
}

/**
 * Where a provider (or a sandbox test) keeps media, on 127.0.0.1: a picture, one over 5 MB, a
 * page of a refused type; Twilio's ask for the account's credentials and redirect to a CDN.
 */
export async function startMediaHost(sid = '', token = ''): Promise<MediaHost> {
  const auths: string[] = [];
  const basic = `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`;
  const server = createServer((req, res) => {
    if (req.url === '/small.png')
      return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    if (req.url === '/big.jpg')
      return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(BIG);
    if (req.url === '/page.html') {
      return res.writeHead(200, { 'content-type': 'text/html' }).end('<p>not a picture</p>');
    }
    if (req.url === '/twilio/ME1') {
      auths.push(req.headers.authorization ?? '');
      if (req.headers.authorization !== basic) return res.writeHead(401).end();
      return res.writeHead(307, { location: '/cdn/ME1.png' }).end();
    }
    if (req.url === '/cdn/ME1.png')
      return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, auths };
}
