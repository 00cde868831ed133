import type { WebhookDeps } from '../commands/context.ts';
import type { Clock } from '../lib/clock.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { newWebhookSecret } from './sign.ts';
import { checkWebhookUrl } from './ssrf-guard.ts';

/**
 * The I/O ports webhook commands need, wired to the real thing: secrets sealed
 * with the process's key, fresh `whsec_` secrets, and the SSRF-checking URL test.
 * One wiring for the public API and the dashboard, so both apply the same rules.
 */
export function webhookDeps(deps: {
  clock: Clock;
  secrets: SecretBox;
  config: { webhookAllowPrivate: boolean };
}): WebhookDeps {
  return {
    clock: deps.clock,
    seal: (secret) => deps.secrets.seal(secret),
    open: (sealed) => deps.secrets.open(sealed),
    newSecret: newWebhookSecret,
    checkUrl: (url) => checkWebhookUrl(url, { allowPrivate: deps.config.webhookAllowPrivate }),
  };
}
