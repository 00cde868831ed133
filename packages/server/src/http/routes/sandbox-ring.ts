import type { FastifyReply, FastifyRequest } from 'fastify';
import { validationError } from '../../domain/errors.ts';
import { requireE164 } from '../../domain/message-rules.ts';
import { listNumbers } from '../../queries/account.ts';
import { scoped } from '../../store/scope.ts';
import { principalOf } from '../plugins/auth.ts';
import type { SandboxRingBody } from '../schemas/messages.ts';

/**
 * `ring: true`: a real call from the sandbox to every softphone of the account signed in to
 * test mode. Nothing is stored now; Kamailio reports the call when it ends (`recordCall`).
 */
export async function ringSoftphones(
  request: FastifyRequest,
  reply: FastifyReply,
  body: SandboxRingBody,
): Promise<unknown> {
  const { voice, store } = request.server.deps;
  const actor = principalOf(request);
  requireE164(body.from, 'from');
  requireE164(body.to, 'to');
  const numbers = await listNumbers(scoped(store.db, actor));
  if (!numbers.some((number) => number.phone === body.to)) {
    throw validationError(
      'to',
      "to must be one of this account's test-mode numbers for an inbound call.",
    );
  }
  if (!voice?.ring) {
    throw validationError('ring', 'Voice is off on this server: `ring` needs it (README, Voice).');
  }
  await voice.ring({ aor: `${actor.accountId}.${actor.mode}`, from: body.from, to: body.to });
  return reply
    .code(202)
    .send({ object: 'sandbox_ring', from: body.from, to: body.to, status: 'ringing' });
}
