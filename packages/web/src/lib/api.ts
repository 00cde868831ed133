import type { Me, Mode, User } from './types.ts';

/** Where the softphone's own API lives (same origin, cookie session). */
export const API_BASE = '/app/api';

/** An API answer that was not 2xx, with the `{error:{type,message,param?}}` it carried. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | undefined;

  constructor(status: number, type: string, message: string, param?: string) {
    super(message);
    this.name = 'ApiRequestError';
    this.status = status;
    this.type = type;
    this.param = param;
  }
}

/** What a signed-in screen uses to talk to the server, in the mode it shows. */
export interface ApiClient {
  readonly mode: Mode;
  get<T>(path: string, query?: Record<string, string>): Promise<T>;
  post<T>(path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  put<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body?: unknown): Promise<T>;
  del<T>(path: string): Promise<T>;
  /** POSTs a file as the body, with its own Content-Type (a picture for the media store). */
  upload<T>(path: string, file: Blob): Promise<T>;
}

async function request<T>(
  method: string,
  path: string,
  options: {
    body?: unknown;
    file?: Blob;
    csrfToken?: string | null;
    query?: Record<string, string>;
    headers?: Record<string, string>;
  } = {},
): Promise<T> {
  const url = new URL(API_BASE + path, window.location.origin);
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  // Every change carries the per-session token, which a page on another site cannot read.
  if (options.csrfToken) headers['x-csrf-token'] = options.csrfToken;
  let body: string | Blob | undefined;
  if (options.file !== undefined) {
    headers['content-type'] = options.file.type || 'application/octet-stream';
    body = options.file;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body, credentials: 'same-origin' });
  } catch {
    throw new ApiRequestError(0, 'network_error', 'Cannot reach Switchboard. Check the network.');
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page, say): the status alone explains the failure.
  }
  if (!response.ok) {
    const error = (parsed as { error?: { type?: string; message?: string; param?: string } })
      ?.error;
    throw new ApiRequestError(
      response.status,
      error?.type ?? 'internal_error',
      error?.message ?? `The server answered ${response.status}.`,
      error?.param,
    );
  }
  return parsed as T;
}

/**
 * A client bound to one mode and session: every call carries `?mode=` and every change the
 * CSRF header. `onUnauthorized` runs when the session has ended (expired, signed out elsewhere).
 */
export function createApiClient(
  mode: Mode,
  csrfToken: string,
  onUnauthorized: () => void,
): ApiClient {
  const guard = async <T>(promise: Promise<T>): Promise<T> => {
    try {
      return await promise;
    } catch (error) {
      if (error instanceof ApiRequestError && error.status === 401) onUnauthorized();
      throw error;
    }
  };
  return {
    mode,
    get: (path, query = {}) => guard(request('GET', path, { query: { ...query, mode } })),
    post: (path, body, headers) =>
      guard(request('POST', path, { body: body ?? {}, csrfToken, query: { mode }, headers })),
    put: (path, body) =>
      guard(request('PUT', path, { body: body ?? {}, csrfToken, query: { mode } })),
    patch: (path, body) =>
      guard(request('PATCH', path, { body: body ?? {}, csrfToken, query: { mode } })),
    del: (path) => guard(request('DELETE', path, { csrfToken, query: { mode } })),
    upload: (path, file) => guard(request('POST', path, { file, csrfToken, query: { mode } })),
  };
}

/** Signs in; the server sets the HttpOnly session cookie. */
export function signIn(
  email: string,
  password: string,
): Promise<{ user: User; csrfToken: string }> {
  return request('POST', '/session', { body: { email, password } });
}

/** Who is signed in, or null when nobody is (no cookie, or it expired). */
export async function loadMe(): Promise<Me | null> {
  try {
    return await request<Me>('GET', '/me');
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 401) return null;
    throw error;
  }
}

/** Ends the session on the server and clears the cookie. */
export async function signOut(csrfToken: string): Promise<void> {
  await request('DELETE', '/session', { csrfToken });
}
