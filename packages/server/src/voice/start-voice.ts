import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import type { Logger } from '../lib/logger.ts';
import { keeperSecrets, voiceRunId } from './ephemeral-credentials.ts';
import {
  connectKeeper,
  startKeeper,
  type KeeperLink,
  type StartingKeeper,
} from './keeper-client.ts';
import { readKeeperState, type KeeperState } from './keeper-protocol.ts';
import { NO_VOICE_TLS_FILES, type VoiceTlsFiles } from './kamailio-tls.ts';
import type { VoiceControl } from './voice-control.ts';
import { missingVoicePackages } from './voice-stack.ts';

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

/** What voice keeps in, and derives its secrets from: the data directory and its secret key. */
export interface VoiceHome {
  dataDir: string;
  secretKey: Buffer;
  logLevel: string;
  /** Kamailio's certificate and trusted CAs (voice/kamailio-tls.ts). */
  tls?: VoiceTlsFiles;
}

/**
 * Voice as `serve` runs it. `off`, or `auto` without the Debian packages: no control plane,
 * messaging alone, and the summary says what to install. `on` without them fails the start.
 * Otherwise the stack runs under a voice keeper (keeper-main.ts): the one a previous `serve`
 * of this data directory left running for its calls is adopted, with its ports and secrets.
 */
export function prepareVoice(
  setting: VoiceSetting,
  host: string,
  logger: Logger,
  home: VoiceHome,
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
  // The secrets of the keeper this serve may adopt, so Kamailio's reports are taken from the
  // moment the HTTP app listens; replaced by fresh ones if a new keeper starts instead.
  const previous = readKeeperState(home.dataDir);
  const control: VoiceControl = {
    secrets: keeperSecrets(home.secretKey, previous?.id ?? randomBytes(12).toString('hex')),
    endpoint: null,
  };
  let keeper: { link: KeeperLink; state: KeeperState } | null = null;
  let starting: StartingKeeper | null = null;
  let stopped = false;
  const tls = home.tls ?? NO_VOICE_TLS_FILES;

  /**
   * The running keeper of this data directory if it reports to `controlUrl` with these TLS files
   * and secrets; stopped if not.
   */
  const adopt = async (controlUrl: string) => {
    const link = await connectKeeper(home.dataDir);
    if (!link) return null;
    const { state, busy, seen } = await link.ask({ op: 'attach' });
    if (busy) throw new Error('Another switchboard serve runs voice from this data directory.');
    const secrets = state && keeperSecrets(home.secretKey, state.id);
    if (
      state &&
      secrets &&
      state.controlUrl === controlUrl &&
      JSON.stringify(state.tls) === JSON.stringify(tls) &&
      state.runId === voiceRunId(secrets)
    ) {
      control.secrets = secrets;
      if (seen && Object.keys(seen).length > 0) control.seenWhileAway = seen;
      logger.info({ pid: state.pid }, 'voice: adopted the running voice keeper and its calls');
      return { link, state };
    }
    logger.info('voice: the running voice keeper is set up otherwise; starting a new one');
    await link.ask({ op: 'stop' });
    await link.closed(10_000);
    return null;
  };

  return {
    control,
    async run(controlUrl) {
      keeper = await adopt(controlUrl);
      if (!keeper && !stopped) {
        const id = randomBytes(12).toString('hex');
        control.secrets = keeperSecrets(home.secretKey, id);
        const { dataDir, logLevel } = home;
        const { secrets } = control;
        const input = { id, host, controlUrl, secrets, dataDir, logLevel, tls };
        starting = startKeeper(input, logger);
        keeper = await starting.ready;
        starting = null;
      }
      if (!keeper) return;
      const { endpoint } = keeper.state;
      const link = keeper.link;
      control.endpoint = {
        wsUrl: endpoint.wsUrl,
        sipHost: `${host}:${endpoint.sipPort}`,
        peerAddress: `${reachableHost(host)}:${endpoint.sipPort}`,
      };
      control.ring = async (call) => {
        const reply = await link.ask({ op: 'ring', call });
        if (reply.error) throw new Error(reply.error);
      };
    },
    async stop() {
      stopped = true;
      control.endpoint = null;
      delete control.ring;
      starting?.abort();
      if (!keeper) return;
      // The keeper stops now unless calls are in progress; those it keeps for the next serve.
      const { staying } = await keeper.link.ask({ op: 'leave' });
      if (staying) logger.info({ calls: staying }, 'voice keeper kept running for calls');
      else await keeper.link.closed(10_000);
      keeper.link.close();
    },
    summary: () =>
      keeper
        ? `on: SIP ${host}:${keeper.state.endpoint.sipPort} (UDP, TCP), TLS ${host}:${keeper.state.endpoint.tlsPort}, softphones ${keeper.state.endpoint.wsUrl}`
        : 'starting',
  };
}

/**
 * The address other instances reach this one's Kamailio at: its host, or for a wildcard the
 * machine's first external IPv4 address (loopback when it has none).
 */
function reachableHost(host: string): string {
  if (host !== '0.0.0.0' && host !== '::') return host.includes(':') ? `[${host}]` : host;
  const external = Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal);
  return external?.address ?? '127.0.0.1';
}
