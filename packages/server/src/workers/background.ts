import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Carrier, CarrierHandlers } from '../carriers/carrier.ts';
import { sandboxCarrier } from '../carriers/sandbox/sandbox-carrier.ts';
import { unconfiguredCarrier } from '../carriers/unconfigured-carrier.ts';
import { applyDeliveryReceipt } from '../commands/apply-delivery-receipt.ts';
import { receiveMessage } from '../commands/receive-message.ts';
import type { Store } from '../store/store.ts';
import { MessageDispatcher } from './message-dispatcher.ts';

/** Background work of the `worker` role, started and stopped together. */
export interface Background {
  stop(): Promise<void>;
}

/**
 * Starts the carrier side: the sandbox carrier for test mode, the live
 * carrier (none configured yet: sends fail as `unreachable`) and the
 * dispatcher that feeds them. Everything they report lands in commands.
 */
export async function startBackground(deps: {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
}): Promise<Background> {
  const { config, store, clock, logger } = deps;
  const commandDeps = { clock };
  const handlers: CarrierHandlers = {
    receipt: (receipt) => store.write((tx) => applyDeliveryReceipt(tx, receipt, commandDeps)),
    inbound: async (text) => {
      await store.write((tx) => receiveMessage(tx, text, commandDeps));
    },
  };
  const carriers: Record<'test' | 'live', Carrier> = {
    test: sandboxCarrier({
      store,
      clock,
      delayMs: config.sandboxDelayMs,
      logger: logger.child({ carrier: 'sandbox' }),
    }),
    live: unconfiguredCarrier(),
  };
  await carriers.test.start(handlers);
  await carriers.live.start(handlers);
  const dispatcher = new MessageDispatcher({
    store,
    carriers,
    clock,
    logger: logger.child({ worker: 'dispatcher' }),
  });
  dispatcher.start();
  return {
    async stop() {
      await dispatcher.stop();
      await carriers.test.stop();
      await carriers.live.stop();
    },
  };
}
