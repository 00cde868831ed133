import { request as httpRequest } from 'node:http';
import type { TestResponse } from './http.ts';
import { firstResponse } from './raw-http.ts';

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
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    method: spec.method,
    path: spec.path,
    headers,
    agent: false,
  });
  const answer = firstResponse(req);
  req.end(spec.body);
  return answer;
}
