/** How often a voice instance says it is alive (`announceVoiceInstance`). */
export const VOICE_HEARTBEAT_MS = 5_000;

/**
 * An instance unseen this long has stopped: inbound calls no longer fork to it, its row is
 * removed, and the open calls its run recorded may be swept by another instance.
 */
export const VOICE_INSTANCE_STALE_MS = 30_000;
