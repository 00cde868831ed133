import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { issueSipCredentials } from '../../voice/ephemeral-credentials.ts';
import { modeOf, sessionOf } from '../session-auth.ts';

/**
 * How long a softphone's SIP credentials last. Short, so a session that ends (sign-out,
 * expiry) cannot register or call for long: the softphone fetches new ones while signed in.
 */
export const SIP_CREDENTIALS_SECONDS = 600;

/** `GET /app/api/voice`: where to reach the SIP server and credentials for this session. */
export async function voiceRoutes(app: FastifyInstance): Promise<void> {
  const { voice, clock } = app.deps;
  app.get<{ Querystring: { mode?: string } }>('/voice', async (request, reply) => {
    const session = sessionOf(request);
    const mode = modeOf(request);
    if (!voice?.endpoint) {
      throw new ApiError('not_found', 'Voice is off on this server.');
    }
    const credentials = issueSipCredentials(
      voice.secrets,
      { accountId: session.accountId, mode, userId: session.user.id },
      clock.now(),
      voice.credentialSeconds ?? SIP_CREDENTIALS_SECONDS,
    );
    reply.header('cache-control', 'no-store');
    return {
      wsUrl: reachable(voice.endpoint.wsUrl, request.hostname),
      sipUri: `sip:${credentials.aor}@${voice.endpoint.sipHost}`,
      aor: credentials.aor,
      username: credentials.username,
      password: credentials.password,
      expiresAt: new Date(credentials.expiresAt).toISOString(),
    };
  });
}

/** Kamailio bound to every address is reached the way this request reached Switchboard. */
function reachable(wsUrl: string, requestHost: string): string {
  const url = new URL(wsUrl);
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') {
    url.hostname = new URL(`http://${requestHost}`).hostname;
  }
  return url.toString().replace(/\/$/, '');
}
