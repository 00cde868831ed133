// Another instance of the service with voice on, on the database of a running voice test app
// (PostgreSQL), as a second `serve` would be: its own store, HTTP port, Kamailio, rtpengine and
// run, the same secret key (so the same peers' token), announced in voice_instances.
import { randomBytes } from 'node:crypto';
import { buildApp } from '../../src/app.ts';
import { localChanges } from '../../src/commands/changes.ts';
import { webhookDeps } from '../../src/delivery/webhook-deps.ts';
import { startVoicePresence } from '../../src/http/voice-presence.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { openStore } from '../../src/store/store.ts';
import { keeperSecrets } from '../../src/voice/ephemeral-credentials.ts';
import type { VoiceControl } from '../../src/voice/voice-control.ts';
import { startVoiceStack, type VoiceStack } from '../../src/voice/voice-stack.ts';
import type { TestApp } from './app.ts';

/** A second voice instance: where to reach it, its stack and control, and how to stop it. */
export interface VoiceInstance {
  url: string;
  stack: VoiceStack;
  voice: VoiceControl;
  close(): Promise<void>;
}

/** Starts another voice instance sharing `a`'s database and the secret key `secretKey`. */
export async function startSecondVoiceInstance(
  a: TestApp,
  secretKey: Buffer,
): Promise<VoiceInstance> {
  const store = await openStore(a.database.options);
  const clock = { now: () => Date.now() };
  const logger = createLogger(process.env.SWITCHBOARD_TEST_VOICE_LOG ?? 'silent');
  const voice: VoiceControl = {
    secrets: keeperSecrets(secretKey, randomBytes(12).toString('hex')),
    endpoint: null,
  };
  const changes = localChanges(store, webhookDeps({ clock, secrets: a.secrets, config: a.config }));
  const app = await buildApp({
    config: a.config,
    store,
    changes,
    clock,
    secrets: a.secrets,
    logger: createLogger('silent'),
    voice,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  let stack: VoiceStack;
  try {
    stack = await startVoiceStack({
      host: '127.0.0.1',
      controlUrl: url,
      secrets: voice.secrets,
      logger,
    });
  } catch (error) {
    await app.close();
    await store.close();
    throw error;
  }
  const sipHost = `127.0.0.1:${stack.sipPort}`;
  voice.endpoint = { wsUrl: stack.wsUrl, sipHost, peerAddress: sipHost };
  voice.ring = stack.ring;
  const withdraw = startVoicePresence(voice, changes, logger);
  let closed = false;
  return {
    url,
    stack,
    voice,
    async close() {
      if (closed) return;
      closed = true;
      await withdraw();
      await stack.stop();
      await app.close();
      await store.close();
    },
  };
}
