import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** What Kamailio and Switchboard share for one run of the voice stack; never logged. */
export interface VoiceSecrets {
  /** Signs ephemeral SIP credentials (Kamailio's auth_ephemeral). */
  credentialSecret: string;
  /** Kamailio presents it on every request to Switchboard's voice control routes. */
  controlToken: string;
  /**
   * Shared by every instance with the same secret key: a Kamailio sends it (in
   * X-Switchboard-Peer) only on an inbound call it forks to a peer instance's Kamailio.
   */
  peerToken: string;
}

/** The token every instance with the same secret key shares for its peers. */
function peerTokenOf(secretKey: Buffer): string {
  return createHmac('sha256', secretKey).update('switchboard voice peer v1').digest('base64url');
}

/**
 * The secrets of voice keeper `keeperId` (voice/keeper-main.ts), derived from the service's
 * secret key: a `serve` that adopts the keeper after a restart has them again, and softphones
 * keep their credentials, without the secrets being stored anywhere.
 */
export function keeperSecrets(secretKey: Buffer, keeperId: string): VoiceSecrets {
  const derive = (purpose: string) =>
    createHmac('sha256', secretKey)
      .update(`switchboard voice ${purpose} ${keeperId}`)
      .digest('base64url');
  return {
    credentialSecret: derive('credentials'),
    controlToken: derive('control'),
    peerToken: peerTokenOf(secretKey),
  };
}

/** A name for this run of the voice stack that reveals nothing of its token (open calls' holder). */
export function voiceRunId(secrets: VoiceSecrets): string {
  return createHash('sha256').update(secrets.controlToken).digest('hex').slice(0, 16);
}

/** A softphone's SIP identity: an address of record and short-lived credentials for it. */
export interface SipCredentials {
  /** `acct_….test`: every device of an account and mode registers here and rings together. */
  aor: string;
  username: string;
  password: string;
  expiresAt: number;
}

/**
 * Credentials in auth_ephemeral's format (username `expiry:userid`, password the base64
 * HMAC-SHA1 of the username under the shared secret), so Kamailio checks them without asking
 * Switchboard. `userid` is `account.mode.user`; the registrar admits it to `account.mode` only.
 */
export function issueSipCredentials(
  secrets: VoiceSecrets,
  who: { accountId: string; mode: string; userId: string },
  nowMs: number,
  lifetimeSeconds: number,
): SipCredentials {
  const expiry = Math.floor(nowMs / 1000) + lifetimeSeconds;
  const aor = `${who.accountId}.${who.mode}`;
  const username = `${expiry}:${aor}.${who.userId}`;
  const password = createHmac('sha1', secrets.credentialSecret).update(username).digest('base64');
  return { aor, username, password, expiresAt: expiry * 1000 };
}

/** True when `presented` is the control token, compared in constant time. */
export function isControlToken(secrets: VoiceSecrets, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(secrets.controlToken);
  return a.length === b.length && timingSafeEqual(a, b);
}
