import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { WebhookPoster } from '../delivery/post-webhook.ts';
import { WebhookWorker } from '../delivery/webhook-worker.ts';
import {
  INBOUND_PART_MAX_AGE_MS,
  type Carrier,
  type CarrierHandlers,
  type DeliveryReceipt,
} from '../carriers/carrier.ts';
import { keepInboundPart } from '../store/repos/carrier-inbound-parts.ts';
import { sandboxCarrier } from '../carriers/sandbox/sandbox-carrier.ts';
import { LiveCarrier } from '../carriers/live/live-carrier.ts';
import { smppAdapter } from '../carriers/smpp/smpp-carrier.ts';
import { telnyxAdapter } from '../carriers/telnyx/telnyx-carrier.ts';
import { twilioAdapter } from '../carriers/twilio/twilio-carrier.ts';
import { TrunkChecks } from '../carriers/sip/trunk-checks.ts';
import { trustedCas } from '../lib/trusted-cas.ts';
import { applyDeliveryReceipts } from '../commands/apply-delivery-receipts.ts';
import { receiveMessage } from '../commands/receive-message.ts';
import { onLane, type Store } from '../store/store.ts';
import { MessageDispatcher } from './message-dispatcher.ts';
import { RetentionSweep } from './retention-sweep.ts';

/** Background work of the `worker` role, started and stopped together. */
export interface Background {
  stop(): Promise<void>;
}

/**
 * Starts the carrier side: the sandbox carrier for test mode, the live
 * carrier (the accounts' carrier connections; without one, a live send fails as
 * `unreachable`) and the dispatcher that feeds them. Everything they report lands in commands.
 * Also the webhook worker and the retention sweep.
 */
export async function startBackground(deps: {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  secrets: SecretBox;
  /** Extra trusted CAs for webhook HTTPS (tests with a self-signed receiver). */
  webhookCa?: string;
  /** Per-attempt webhook timeout; 15 s unless a test shortens it. */
  webhookTimeoutMs?: number;
  /** Makes the HTTP part of webhook attempts elsewhere (the HTTP thread of `serve`). */
  webhookPoster?: WebhookPoster;
  /** Time between retention sweeps; hourly unless a test shortens it. */
  retentionIntervalMs?: number;
}): Promise<Background> {
  const { config, clock, logger, secrets } = deps;
  // Everything started here commits apart from requests on PostgreSQL, and webhook
  // delivery apart from the carrier side.
  const store = onLane(deps.store, 'carrier');
  const commandDeps = { clock };
  const applyAlone = (receipt: DeliveryReceipt) =>
    store.write(async (tx) => (await applyDeliveryReceipts(tx, [receipt], commandDeps))[0]!);
  const handlers: CarrierHandlers = {
    receipts: async (receipts) => {
      try {
        return await store.write((tx) => applyDeliveryReceipts(tx, receipts, commandDeps));
      } catch (error) {
        if (receipts.length === 1) throw error;
        // One receipt that cannot be applied must not hold back the rest of its batch:
        // each alone, and one that fails again is reported again later (as if unknown).
        logger.error({ err: error }, 'a batch of receipts failed; applying them one by one');
        return Promise.all(
          receipts.map((receipt) =>
            applyAlone(receipt).catch((alone: unknown) => {
              logger.error({ err: alone, carrierRef: receipt.carrierRef }, 'a receipt failed');
              return 'unknown' as const;
            }),
          ),
        );
      }
    },
    inbound: async (text) => {
      await store.write((tx) => receiveMessage(tx, text, commandDeps));
    },
    inboundPart: async (part, join) => {
      await store.write(async (tx) => {
        const now = clock.now();
        const row = { text_key: part.key, seq: part.seq, total: part.total, part_json: part.data };
        const parts = await keepInboundPart(
          tx.db,
          { ...row, received_at: now },
          now - INBOUND_PART_MAX_AGE_MS,
        );
        if (parts) await receiveMessage(tx, join(parts.map((p) => p.part_json)), commandDeps);
      });
    },
  };
  const carriers: Record<'test' | 'live', Carrier> = {
    test: sandboxCarrier({
      store,
      clock,
      delayMs: config.sandboxDelayMs,
      logger: logger.child({ carrier: 'sandbox' }),
    }),
    live: new LiveCarrier({
      store,
      clock,
      secrets,
      logger: logger.child({ carrier: 'live' }),
      factories: { smpp: smppAdapter, twilio: twilioAdapter, telnyx: telnyxAdapter },
      publicUrl: config.publicUrl,
    }),
  };
  await carriers.test.start(handlers);
  await carriers.live.start(handlers);
  const dispatcher = new MessageDispatcher({
    store,
    carriers,
    clock,
    logger: logger.child({ worker: 'dispatcher' }),
    queueExpiryMs: config.liveQueueHours * 3_600_000,
  });
  dispatcher.start();
  // The HTTP part of each attempt: made by whoever was given (the HTTP thread of `serve`),
  // else here, on a guarded dispatcher of this thread's own. Imported only then: a thread
  // that never makes a request does not load undici.
  const webhookDispatcher = deps.webhookPoster
    ? null
    : (await import('../delivery/guarded-dispatcher.ts')).webhookDispatcher({
        allowPrivate: config.webhookAllowPrivate,
        timeoutMs: deps.webhookTimeoutMs,
        ca: deps.webhookCa,
      });
  const webhooks = new WebhookWorker({
    store: onLane(deps.store, 'webhooks'),
    clock,
    logger: logger.child({ worker: 'webhooks' }),
    secrets,
    ...(webhookDispatcher ? { dispatcher: webhookDispatcher } : { post: deps.webhookPoster! }),
    requireHttps: !config.webhookAllowPrivate,
    ...(deps.webhookTimeoutMs ? { timeoutMs: deps.webhookTimeoutMs } : {}),
  });
  webhooks.start();
  // Its batches commit beside the webhook worker's, whose tables it mostly sweeps.
  const retention = new RetentionSweep({
    store: onLane(deps.store, 'webhooks'),
    clock,
    logger: logger.child({ worker: 'retention' }),
    retentionDays: config.retentionDays,
    ...(deps.retentionIntervalMs ? { intervalMs: deps.retentionIntervalMs } : {}),
  });
  retention.start();
  const trunks = new TrunkChecks({
    store,
    clock,
    logger: logger.child({ worker: 'trunks' }),
    intervalMs: config.trunkCheckSeconds * 1000,
    ca: trustedCas(config.voiceTls.ca),
  });
  trunks.start();
  return {
    async stop() {
      await trunks.stop();
      await retention.stop();
      await webhooks.stop();
      await webhookDispatcher?.close();
      await dispatcher.stop();
      await carriers.test.stop();
      await carriers.live.stop();
    },
  };
}
