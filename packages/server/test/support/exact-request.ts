import { request as httpRequest } from 'node:http';
import type { TestResponse } from './http.ts';

/** A request sent exactly as written: the path's bytes as they are, no header added but Content-Length. */
export interface ExactRequest {
  method: string;
  /** Sent verbatim (no URL normalisation: `..`, `%zz` and `;` stay as they are). */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/**
 * Sends `spec` to 127.0.0.1:`port` over a connection of its own (a server that answers
 * before reading a large body may close it) and settles with the first response.
 */
export function exactRequest(port: number, spec: ExactRequest): Promise<TestResponse> {
  const headers: Record<string, string | number> = { ...spec.headers };
  if (spec.body !== undefined) headers['content-length'] = Buffer.byteLength(spec.body);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      { host: '127.0.0.1', port, method: spec.method, path: spec.path, headers, agent: false },
      (res) => {
        answered = true;
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) responseHeaders.set(name, [value].flat().join(', '));
          }
          resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body, text });
        });
      },
    );
    // A server that refuses a body early may reset the connection while we still write.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.end(spec.body);
  });
}
