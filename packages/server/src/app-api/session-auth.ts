import type {} from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors.ts';
import { isMode, type Mode } from '../domain/modes.ts';
import { sha256Hex } from '../lib/secrets.ts';
import { findSignedInUser } from '../queries/signed-in-user.ts';
import type { UserRow } from '../store/repos/users.ts';
import type { DB } from '../store/schema.ts';

/** The session cookie: HttpOnly, SameSite=Lax, scoped to the app. */
export const SESSION_COOKIE = 'sb_session';

/** A signed-in softphone user. */
export interface AppSession {
  user: UserRow;
  accountId: string;
  csrfToken: string;
  tokenHash: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    appSession: AppSession | null;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Resolves a cookie token to its session and user, or null. */
export async function sessionFromToken(
  db: Kysely<DB>,
  token: string | undefined,
  now: number,
): Promise<AppSession | null> {
  if (!token) return null;
  const tokenHash = sha256Hex(token);
  const found = await findSignedInUser(db, tokenHash, now);
  if (!found) return null;
  const { session, user } = found;
  return { user, accountId: session.account_id, csrfToken: session.csrf_token, tokenHash };
}

/**
 * Cross-site request forgery defence for cookie-authenticated changes: the
 * SameSite cookie, an Origin that matches the Host when the browser sends one,
 * and a per-session token in `X-CSRF-Token` (which another site cannot read).
 */
export function checkOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const host = request.headers.host;
  const originHost = URL.canParse(origin) ? new URL(origin).host : null;
  if (!host || originHost !== host) {
    throw new ApiError('unauthorized', 'Cross-site request refused.');
  }
}

/**
 * Session authentication for `/app/api/*` (except signing in): every request
 * needs a live session; every change also needs the CSRF token.
 */
export function registerSessionAuth(app: FastifyInstance): void {
  const { store, clock } = app.deps;
  app.decorateRequest('appSession', null);
  app.addHook('onRequest', async (request) => {
    if (!SAFE_METHODS.has(request.method)) checkOrigin(request);
    if (request.routeOptions.config.public) return;
    const session = await sessionFromToken(store.db, request.cookies[SESSION_COOKIE], clock.now());
    if (!session) {
      // Counted against its address: over the limit, 429 instead (http/plugins/address-rate-limit.ts).
      app.limitUnauthenticated(request);
      throw new ApiError('unauthorized', 'Sign in to continue.');
    }
    if (
      !SAFE_METHODS.has(request.method) &&
      request.headers['x-csrf-token'] !== session.csrfToken
    ) {
      throw new ApiError('unauthorized', 'Missing or wrong CSRF token; reload the app.');
    }
    request.appSession = session;
  });
}

/** The session of an authenticated app request. */
export function sessionOf(request: FastifyRequest): AppSession {
  if (!request.appSession) throw new ApiError('unauthorized', 'Sign in to continue.');
  return request.appSession;
}

/** Owners only: the dashboard (keys, numbers, webhooks, team, settings). */
export function requireOwner(request: FastifyRequest): AppSession {
  const session = sessionOf(request);
  if (session.user.role !== 'owner') {
    throw new ApiError('not_found', 'This page is for account owners.');
  }
  return session;
}

/** The mode the app works in for this request (`?mode=live`); test unless asked. */
export function modeOf(request: FastifyRequest): Mode {
  const mode = (request.query as { mode?: string } | undefined)?.mode ?? 'test';
  if (!isMode(mode))
    throw new ApiError('validation_error', 'mode must be test or live.', { param: 'mode' });
  return mode;
}
