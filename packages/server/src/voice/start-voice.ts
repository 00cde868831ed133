import type { Logger } from '../lib/logger.ts';
import { newVoiceSecrets } from './ephemeral-credentials.ts';
import { NO_VOICE_TLS_FILES, type VoiceTlsFiles } from './kamailio-tls.ts';
import type { VoiceControl } from './voice-control.ts';
import { missingVoicePackages, startVoiceStack, type VoiceStack } from './voice-stack.ts';

/** `SWITCHBOARD_VOICE`: `auto` runs voice when its programs are installed. */
export type VoiceSetting = 'auto' | 'on' | 'off';

/** Whether voice runs, and the one line the start banner says about it. */
export interface VoiceStart {
  control: VoiceControl | null;
  /** Where the HTTP app is reached, for Kamailio's reports; set by `run`. */
  run(controlUrl: string): Promise<void>;
  stop(): Promise<void>;
  /** What the banner and the log say: on and where, or off and why, with how to install. */
  summary(): string;
}

/**
 * Voice as `serve` runs it. `off`, or `auto` without the Debian packages: no control plane,
 * messaging alone, and the summary says what to install. `on` without them fails the start.
 */
export function prepareVoice(
  setting: VoiceSetting,
  host: string,
  logger: Logger,
  tls: VoiceTlsFiles = NO_VOICE_TLS_FILES,
): VoiceStart {
  const missing = setting === 'off' ? [] : missingVoicePackages();
  const install = `apt-get install -y ${missing.join(' ')}`;
  if (setting === 'on' && missing.length > 0) {
    throw new Error(
      `SWITCHBOARD_VOICE=on, but voice's programs are missing. Install with: ${install}`,
    );
  }
  if (setting === 'off' || missing.length > 0) {
    const why =
      setting === 'off' ? 'off (SWITCHBOARD_VOICE=off)' : `off: not installed (${install})`;
    return { control: null, run: async () => {}, stop: async () => {}, summary: () => why };
  }
  const control: VoiceControl = { secrets: newVoiceSecrets(), endpoint: null };
  let stack: VoiceStack | null = null;
  return {
    control,
    async run(controlUrl) {
      stack = await startVoiceStack({ host, controlUrl, secrets: control.secrets, logger, tls });
      control.endpoint = { wsUrl: stack.wsUrl, sipHost: `${host}:${stack.sipPort}` };
      control.ring = stack.ring;
    },
    async stop() {
      control.endpoint = null;
      delete control.ring;
      await stack?.stop();
    },
    summary: () =>
      stack
        ? `on: SIP ${host}:${stack.sipPort} (UDP, TCP), TLS ${host}:${stack.tlsPort}, softphones ${stack.wsUrl}`
        : 'starting',
  };
}
