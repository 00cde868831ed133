import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { ApiKeyPrincipal } from '../commands/authenticate-api-key.ts';
import type { Changes } from '../commands/changes.ts';
import type { ReadStore } from '../store/store.ts';
import type { VoiceControl } from '../voice/voice-control.ts';

/** What the HTTP app is built from: everything with I/O is passed in. */
export interface AppDeps {
  config: Config;
  /** Reads, and the signals of committed changes. */
  store: ReadStore;
  /** Every change, as a command of the registry (commands/registry.ts). */
  changes: Changes;
  logger: Logger;
  clock: Clock;
  /** Seals and opens webhook signing secrets. */
  secrets: SecretBox;
  /** How often the realtime hub pings and checks each channel's session (25 s unless a test shortens it). */
  realtimeHeartbeatMs?: number;
  /** A CA Web Push trusts besides the system's (a test's own push service). */
  pushCa?: string;
  /** Voice's control plane, when voice is on (voice/). */
  voice?: VoiceControl;
}

/** An idempotent POST in progress: its key and the hash of what was asked. */
export interface IdempotencyContext {
  key: string;
  requestHash: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
  }
  interface FastifyRequest {
    /** The API key's account and mode; set on every authenticated `/v1` request. */
    principal: ApiKeyPrincipal | null;
    idempotency: IdempotencyContext | null;
  }
  /** OpenAPI annotations carried in route schemas (see http/openapi.ts). */
  interface FastifySchema {
    operationId?: string;
    summary?: string;
    description?: string;
    tags?: string[];
  }
  interface FastifyContextConfig {
    /** Routes that answer without an API key (health, discovery). */
    public?: boolean;
    /** Routes that take a provider's own body format, checked by the route (carrier callbacks). */
    providerBody?: boolean;
  }
}
