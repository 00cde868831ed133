import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Type, type Static } from '@sinclair/typebox';
import { checkTrunkCertificate, sniName } from '../../carriers/sip/trunk-tls.ts';
import { ApiError } from '../../domain/errors.ts';
import { trustedCas } from '../../lib/trusted-cas.ts';
import { inboundTrunk, outboundTrunk } from '../../queries/voice-trunks.ts';
import { voicePeers } from '../../queries/voice-peers.ts';
import { isControlToken, voiceRunId } from '../../voice/ephemeral-credentials.ts';

const OutboundCall = Type.Object(
  {
    /** `acct_….live`: whose softphone places the call. */
    aor: Type.String({ maxLength: 128 }),
    from: Type.String({ maxLength: 64 }),
    to: Type.String({ maxLength: 64 }),
  },
  { additionalProperties: false },
);

const InboundCall = Type.Object(
  {
    to: Type.String({ maxLength: 64 }),
    /** The address the INVITE came from. */
    source: Type.String({ maxLength: 64 }),
  },
  { additionalProperties: false },
);

const Ringing = Type.Object(
  {
    /** `acct_….mode`: whose softphones ring. */
    aor: Type.String({ pattern: '^[A-Za-z0-9_]+\\.(test|live)$', maxLength: 128 }),
  },
  { additionalProperties: false },
);

const b64 = (text: string) => Buffer.from(text).toString('base64');

/** How long a TLS trunk's handshake may take before a call: within http_client's 5 s. */
const TLS_CHECK_MS = 3000;

/** Whether `address` is one of `host`'s: the host itself, or what it resolves to. */
async function isAddressOf(host: string, address: string): Promise<boolean> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return bare === address;
  try {
    return (await lookup(bare, { all: true })).some((a) => a.address === address);
  } catch {
    return false;
  }
}

/**
 * Kamailio's routing questions (docs/behaviour.md#voice), answered as one line of fields split
 * by `|` (credentials in base64, so no field holds the separator): Kamailio reads them with
 * `s.select` and needs no JSON module. Only Kamailio, holding this run's control token, may
 * ask; to anyone else the routes do not exist.
 */
export async function voiceRoutingRoutes(app: FastifyInstance): Promise<void> {
  const { voice, store, secrets, clock, config } = app.deps;
  if (!voice) return;
  // The CAs Kamailio's tls module is given (voice/kamailio-tls.ts), read once.
  const trust = { ca: trustedCas(config.voiceTls.ca) };
  const guard = (request: FastifyRequest) => {
    const token = request.headers['x-switchboard-voice'];
    if (!isControlToken(voice.secrets, typeof token === 'string' ? token : undefined)) {
      throw new ApiError('not_found', `No route for ${request.method} ${request.url}.`);
    }
  };
  const line = (reply: FastifyReply, fields: string[]) =>
    reply.code(200).type('text/plain').send(fields.join('|'));

  // A live softphone's call: where it goes (the trunk), the number it shows, the trunk's login,
  // the name Kamailio sends as SNI ("-": none, the host is an address) and why the trunk is
  // refused ("-": it is not). A TLS trunk's certificate is checked here first: Kamailio 5.6
  // checks only its chain, not that it names the trunk, and learns of a failed handshake only
  // when the call times out.
  app.post<{ Body: Static<typeof OutboundCall> }>(
    '/voice/route',
    { config: { public: true }, schema: { body: OutboundCall } },
    async (request, reply) => {
      guard(request);
      const [accountId, mode] = request.body.aor.split('.');
      if (!accountId || mode !== 'live') {
        throw new ApiError('validation_error', 'aor must be "account.live".', { param: 'aor' });
      }
      const found = await outboundTrunk(store.db, accountId, request.body.from, secrets);
      if (!found) throw new ApiError('not_found', 'No live number of the account has a SIP trunk.');
      const { trunk, secret } = found;
      const failure =
        trunk.transport === 'tls' ? await checkTrunkCertificate(trunk, TLS_CHECK_MS, trust) : null;
      const host =
        trunk.host.includes(':') && !trunk.host.startsWith('[') ? `[${trunk.host}]` : trunk.host;
      const uri =
        `sip:${request.body.to}@${host}:${trunk.port}` +
        (trunk.transport === 'udp' ? '' : `;transport=${trunk.transport}`);
      const sni = trunk.transport === 'tls' ? (sniName(trunk.host) ?? '-') : '-';
      // Why, for Kamailio's log; on one line, without the separator.
      const refused = failure ? failure.replace(/[|\r\n]+/g, ' ') : '-';
      const login = [b64(secret.username), b64(secret.password)];
      return line(reply, [uri, found.phone, ...login, sni, refused]);
    },
  );

  // An INVITE from outside to `to`: whose softphones ring, and whether the sender is the
  // trunk by its address ("1") or must prove it with the trunk's credentials ("0").
  app.post<{ Body: Static<typeof InboundCall> }>(
    '/voice/inbound',
    { config: { public: true }, schema: { body: InboundCall } },
    async (request, reply) => {
      guard(request);
      const found = await inboundTrunk(store.db, request.body.to, secrets);
      if (!found)
        throw new ApiError('not_found', `${request.body.to} takes no calls from a trunk.`);
      const trusted = await isAddressOf(found.trunk.host, request.body.source);
      if (!trusted && !found.trunk.authenticated) {
        throw new ApiError('unauthorized', 'Not the trunk of this number.');
      }
      return line(reply, [
        `${found.accountId}.live`,
        trusted ? '1' : '0',
        b64(found.secret.username),
        b64(found.secret.password),
      ]);
    },
  );
  // An inbound call to `aor`'s softphones: the other live instances' Kamailio, each as the SIP
  // URI of a branch that rings the softphones registered there (route RING, voice_instances).
  app.post<{ Body: Static<typeof Ringing> }>(
    '/voice/peers',
    { config: { public: true }, schema: { body: Ringing } },
    async (request, reply) => {
      guard(request);
      const peers = await voicePeers(store.db, voiceRunId(voice.secrets), clock.now());
      return line(
        reply,
        peers.map((address) => `sip:${request.body.aor}@${address};sb_peer=1`),
      );
    },
  );
}
