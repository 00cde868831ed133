import { readFileSync } from 'node:fs';

/** What the generated Kamailio configuration is made of. */
export interface KamailioSettings {
  host: string;
  sipPort: number;
  wsPort: number;
  /** SIP over TLS, for trunks. */
  tlsPort: number;
  /** The tls module's configuration file (voice/kamailio-tls.ts). */
  tlsConfig: string;
  rtpenginePort: number;
  /** `host:port` of the far end every softphone call is sent to (the sandbox's). */
  farEnd: string;
  /** Switchboard's base URL, where Kamailio reports calls. */
  controlUrl: string;
  credentialSecret: string;
  controlToken: string;
  /** Shared by all instances: marks an inbound call one forks to another (route FROM_PEER). */
  peerToken: string;
  ringTimeoutMs: number;
  modules: string;
}

const TEMPLATE = new URL('./kamailio.cfg.tpl', import.meta.url);

/** Debian's module directory for Kamailio 5.6. */
export const DEBIAN_KAMAILIO_MODULES = '/usr/lib/x86_64-linux-gnu/kamailio/modules/';

/** Kamailio's configuration text: the template with every `{{NAME}}` filled in. */
export function kamailioConfig(settings: KamailioSettings): string {
  const values: Record<string, string> = {
    HOST: settings.host,
    SIP_PORT: String(settings.sipPort),
    WS_PORT: String(settings.wsPort),
    TLS_PORT: String(settings.tlsPort),
    TLS_CONFIG: settings.tlsConfig,
    RTPENGINE_PORT: String(settings.rtpenginePort),
    FAR_END: settings.farEnd,
    CONTROL_URL: settings.controlUrl,
    SECRET: settings.credentialSecret,
    TOKEN: settings.controlToken,
    PEER_TOKEN: settings.peerToken,
    RING_TIMEOUT_MS: String(settings.ringTimeoutMs),
    MODULES: settings.modules,
    LOG_PREFIX: 'kamailio',
  };
  return readFileSync(TEMPLATE, 'utf8').replace(/\{\{([A-Z_]+)\}\}/g, (mark, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`The Kamailio template names an unknown ${mark}.`);
    if (/["\n\r]/.test(value)) throw new Error(`${name} cannot go into a Kamailio configuration.`);
    return value;
  });
}
