import { contractOf } from './contract.ts';

/** A response as tests look at it. */
export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * A small HTTP client over `fetch` for tests: real requests to a real server. Every
 * response is checked against the API description the server publishes
 * (support/contract.ts), so a test fails on any answer the document does not allow.
 */
export class ApiClient {
  readonly baseUrl: string;
  readonly key: string | null;

  constructor(baseUrl: string, key: string | null) {
    this.baseUrl = baseUrl;
    this.key = key;
  }

  /** Sends a request; `body` is JSON-encoded unless it is already a string. */
  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<TestResponse<T>> {
    const all: Record<string, string> = { ...headers };
    if (this.key !== null && all.authorization === undefined)
      all.authorization = `Bearer ${this.key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      if (all['content-type'] === undefined) all['content-type'] = 'application/json';
    }
    for (const [k, v] of Object.entries(all)) if (v === '') delete all[k];
    // Loaded before the request, so the first one is not held up between its answer and the next.
    const contract = await contractOf(this.baseUrl);
    const response = await fetch(this.baseUrl + path, { method, headers: all, body: payload });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const result = { status: response.status, headers: response.headers, body: parsed as T, text };
    contract.check(method, path, result);
    return result;
  }

  get<T = any>(path: string, headers?: Record<string, string>): Promise<TestResponse<T>> {
    return this.request<T>('GET', path, undefined, headers);
  }

  post<T = any>(
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<TestResponse<T>> {
    return this.request<T>('POST', path, body, headers);
  }
}
