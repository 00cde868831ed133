import { CarrierRejection, type Carrier } from './carrier.ts';

/**
 * The live-mode carrier when no real carrier connection is configured: it
 * refuses every submission as `unreachable`, so live sends fail visibly
 * (`message.failed`) instead of waiting forever.
 */
export function unconfiguredCarrier(): Carrier {
  return {
    name: 'none',
    window: 100,
    start: async () => {},
    stop: async () => {},
    submit: async () => {
      throw new CarrierRejection('unreachable', 'No live carrier connection is configured.');
    },
  };
}
