// Another instance of the service on the database of a running test app (PostgreSQL),
// as a second server process would be: its own store, listener and HTTP port, the same
// secret key and configuration.
import { buildApp } from '../../src/app.ts';
import { localChanges } from '../../src/commands/changes.ts';
import type { Role } from '../../src/config.ts';
import { webhookDeps } from '../../src/delivery/webhook-deps.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { openStore } from '../../src/store/store.ts';
import type { TestApp } from './app.ts';

/** A second instance: where to reach it, and how to stop it. */
export interface Instance {
  url: string;
  close(): Promise<void>;
}

/** Starts another instance sharing `a`'s database and secret key, with `roles`. */
export async function startSecondInstance(
  a: TestApp,
  options: { roles: Role[]; pushCa?: string },
): Promise<Instance> {
  const store = await openStore(a.database.options);
  const config = { ...a.config, roles: options.roles };
  const clock = { now: () => Date.now() };
  const app = await buildApp({
    config,
    store,
    changes: localChanges(store, webhookDeps({ clock, secrets: a.secrets, config })),
    clock,
    secrets: a.secrets,
    logger: createLogger('silent'),
    ...(options.pushCa ? { pushCa: options.pushCa } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    async close() {
      await app.close();
      await store.close();
    },
  };
}
