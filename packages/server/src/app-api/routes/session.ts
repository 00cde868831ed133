import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from '../../domain/errors.ts';
import { SESSION_TTL_MS } from '../../commands/create-session.ts';
import { checkCredentials } from '../../queries/credentials.ts';
import { describeAccount } from '../../queries/account.ts';
import { LoginThrottle } from '../login-throttle.ts';
import { SESSION_COOKIE, sessionOf } from '../session-auth.ts';
import { accountScoped } from '../../store/scope.ts';

const SignInBody = Type.Object(
  { email: Type.String({ maxLength: 320 }), password: Type.String({ maxLength: 1024 }) },
  { additionalProperties: false },
);

/** Sign-in, sign-out and who-am-I for the softphone. */
export async function sessionRoutes(app: FastifyInstance): Promise<void> {
  const { store, clock, changes } = app.deps;
  const throttle = new LoginThrottle();

  app.post<{ Body: Static<typeof SignInBody> }>(
    '/session',
    { config: { public: true }, schema: { body: SignInBody } },
    async (request, reply) => {
      const now = clock.now();
      const { email, password } = request.body;
      const wait = throttle.retryAfter(email, request.ip, now);
      if (wait > 0) {
        throw new ApiError('rate_limited', 'Too many sign-in attempts; try again later.', {
          headers: { 'retry-after': String(wait) },
        });
      }
      const user = await checkCredentials(store.db, email, password);
      if (!user) {
        throttle.fail(email, request.ip, now);
        throw new ApiError('unauthorized', 'Wrong email or password.');
      }
      throttle.succeed(email);
      if (user.disabled_at !== null) {
        // Said only to whoever knows the password.
        throw new ApiError('unauthorized', 'This login is disabled; ask an owner of the account.');
      }
      const session = await changes.run('createSession', { user });
      reply.setCookie(SESSION_COOKIE, session.token, {
        path: '/app',
        httpOnly: true,
        sameSite: 'lax',
        secure: request.protocol === 'https',
        maxAge: Math.floor(SESSION_TTL_MS / 1000),
      });
      return {
        user: { id: user.id, email: user.email, name: user.name, role: user.role },
        csrfToken: session.csrfToken,
      };
    },
  );

  app.delete('/session', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await changes.run('endSession', { token });
    reply.clearCookie(SESSION_COOKIE, { path: '/app' });
    return { signedOut: true };
  });

  app.get('/me', async (request) => {
    const { user, accountId, csrfToken } = sessionOf(request);
    const { account, numbers, textOnly } = await describeAccount(
      accountScoped(store.db, accountId),
    );
    return {
      user: { id: user.id, email: user.email, name: user.name, role: user.role },
      account,
      numbers,
      textOnly,
      csrfToken,
    };
  });
}
