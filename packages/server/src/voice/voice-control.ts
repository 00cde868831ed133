import type { VoiceSecrets } from './ephemeral-credentials.ts';
import type { SandboxRing } from './sandbox-caller.ts';

/**
 * What the HTTP side knows of voice: the secrets it shares with Kamailio, and where
 * softphones reach Kamailio once the stack runs (null while voice is off or starting).
 */
export interface VoiceControl {
  secrets: VoiceSecrets;
  endpoint: {
    wsUrl: string;
    sipHost: string;
    /** `host:port` where other instances' Kamailio forks inbound calls to this one (UDP). */
    peerAddress: string;
  } | null;
  /** Rings an account's softphones from the sandbox; set while the stack runs. */
  ring?: (call: SandboxRing) => Promise<void>;
  /**
   * When each call was last seen running by the voice keeper while no serve ran (Call-ID to
   * epoch ms), from the keeper this serve adopted; the first sweep closes those that ended.
   */
  seenWhileAway?: Record<string, number>;
  /** How long softphones' SIP credentials last; app-api/routes/voice.ts's default unless set. */
  credentialSeconds?: number;
}
