import { request as httpRequest, type ClientRequest } from 'node:http';
import type { TestResponse } from './http.ts';

/** A request exactly as written: no header is added and none is guessed. */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent as is, with a Content-Length. */
  body?: string | Buffer;
  /** Sent one by one with `Transfer-Encoding: chunked` and no Content-Length. */
  chunks?: Buffer[];
  /**
   * With `chunks`: the body is ended only once the answer has arrived, so a server
   * that waits for the whole body before answering never answers.
   */
  holdOpen?: boolean;
}

/**
 * Sends a request over node:http, which, unlike `fetch`, adds no Content-Type
 * of its own, so tests can send a body without one or with any other. The
 * promise settles with the first response, even when the server answers
 * before it has read the whole body and then drops the connection.
 */
export function rawRequest(baseUrl: string, spec: RawRequest): Promise<TestResponse> {
  const url = new URL(spec.path, baseUrl);
  const headers: Record<string, string | number> = { ...spec.headers };
  if (spec.body !== undefined) headers['content-length'] = Buffer.byteLength(spec.body);
  if (spec.chunks !== undefined) headers['transfer-encoding'] = 'chunked';
  const req = httpRequest(url, { method: spec.method, headers, agent: false });
  const answer = firstResponse(req, () => {
    if (spec.holdOpen) req.end();
  });
  if (spec.chunks !== undefined) {
    for (const chunk of spec.chunks) req.write(chunk);
    if (!spec.holdOpen) req.end();
  } else {
    req.end(spec.body);
  }
  return answer;
}

/**
 * Settles with the first response to `req`, read whole, even when the server answers
 * before it has read the whole body and then drops the connection. `onAnswer` runs as
 * the response starts.
 */
export function firstResponse(req: ClientRequest, onAnswer?: () => void): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      onAnswer?.();
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
    });
    // A server that refuses a body early may reset the connection while we still write.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
  });
}
