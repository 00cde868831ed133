// What the tests of the webhook worker itself share: an account with endpoints written
// through the real commands on a store, and a store whose writes the test watches.
import type { Actor, WebhookDeps } from '../../src/commands/context.ts';
import { createAccount } from '../../src/commands/create-account.ts';
import { createContact } from '../../src/commands/create-contact.ts';
import { createWebhookEndpoint } from '../../src/commands/webhooks/create-webhook-endpoint.ts';
import { SETTLEMENT } from '../../src/delivery/settle-attempt.ts';
import { newWebhookSecret } from '../../src/delivery/sign.ts';
import { checkWebhookUrl } from '../../src/delivery/ssrf-guard.ts';
import type { Clock } from '../../src/lib/clock.ts';
import type { SecretBox } from '../../src/lib/secret-box.ts';
import type { WebhookEndpointView } from '../../src/presenters/webhook-endpoint.ts';
import { withWrite, type Store } from '../../src/store/store.ts';
import type { WriteOptions } from '../../src/store/engine/write-queue.ts';

/** The commands' webhook dependencies on `clock`, with local receivers allowed. */
export function webhookDeps(clock: Clock, secrets: SecretBox): WebhookDeps {
  return {
    clock,
    seal: (secret) => secrets.seal(secret),
    open: (sealed) => secrets.open(sealed),
    newSecret: newWebhookSecret,
    checkUrl: (url) => checkWebhookUrl(url, { allowPrivate: true }),
  };
}

/**
 * A new account named `name` with one endpoint for contact.created at each of `urls`,
 * and `contact(phone)`, which creates a contact and so records one event for them all.
 */
export async function accountWithEndpoints(
  store: Store,
  deps: WebhookDeps,
  name: string,
  urls: string[],
): Promise<{ endpoints: WebhookEndpointView[]; contact: (phone: string) => Promise<unknown> }> {
  const account = await store.write((tx) => createAccount(tx, { name }, deps));
  const actor: Actor = { accountId: account.id, mode: 'test' };
  const endpoints: WebhookEndpointView[] = [];
  for (const url of urls) {
    endpoints.push(
      await store.write((tx) =>
        createWebhookEndpoint(tx, actor, { url, events: ['contact.created'] }, deps),
      ),
    );
  }
  const contact = (phone: string) => store.write((tx) => createContact(tx, actor, { phone }, deps));
  return { endpoints, contact };
}

/** Whether a write the worker asked for is a claim: one that need not wait for the disk, settlements aside. */
export function isClaim(options: WriteOptions | undefined): boolean {
  return options?.durable === false && options !== SETTLEMENT;
}

/** `store`, telling `watch` the options of every write asked of it, as it is asked. */
export function watchedWrites(
  store: Store,
  watch: (options: WriteOptions | undefined) => void,
): Store {
  return withWrite(store, (unit, options) => {
    const written = store.write(unit, options);
    watch(options);
    return written;
  });
}
