import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from '../../domain/errors.ts';
import { isMode } from '../../domain/modes.ts';
import { isControlToken, voiceRunId } from '../../voice/ephemeral-credentials.ts';

const CallEvent = Type.Object(
  {
    call_id: Type.String({ maxLength: 256 }),
    /** `acct_….mode`: whose softphone placed or took the call. */
    aor: Type.String({ maxLength: 128 }),
    from: Type.String({ maxLength: 64 }),
    to: Type.String({ maxLength: 64 }),
    direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]),
    /** `answered`: the call has just connected (kept open until its end is reported). */
    outcome: Type.Union([
      Type.Literal('completed'),
      Type.Literal('missed'),
      Type.Literal('answered'),
    ]),
    duration: Type.Integer({ minimum: 0, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

/**
 * `POST /voice/events`: Kamailio reports each call that was answered (kept open) and each
 * that ended (its dialog events); an ended call is recorded by `recordCall` as if the sandbox
 * trigger had. Only Kamailio, holding the
 * control token of this run, may call it; to anyone else it does not exist.
 */
export async function voiceEventRoutes(app: FastifyInstance): Promise<void> {
  const { voice, changes } = app.deps;
  if (!voice) return;
  app.post<{ Body: Static<typeof CallEvent> }>(
    '/voice/events',
    { config: { public: true }, schema: { body: CallEvent } },
    async (request, reply) => {
      const token = request.headers['x-switchboard-voice'];
      if (!isControlToken(voice.secrets, typeof token === 'string' ? token : undefined)) {
        throw new ApiError('not_found', `No route for ${request.method} ${request.url}.`);
      }
      const { call_id: callId, aor, from, to, direction, outcome, duration } = request.body;
      const [accountId, mode] = aor.split('.');
      if (!accountId || !mode || !isMode(mode)) {
        throw new ApiError('validation_error', 'aor must be "account.mode".', { param: 'aor' });
      }
      if (outcome === 'answered') {
        const runId = voiceRunId(voice.secrets);
        const input = { callId, runId, accountId, mode, from, to, direction };
        return reply.code(201).send(await changes.run('openCall', input));
      }
      const call = await changes.run('endCall', {
        actor: { accountId, mode },
        callId,
        call: { from, to, direction, outcome, duration: outcome === 'missed' ? 0 : duration },
      });
      return reply.code(201).send(call);
    },
  );
}
