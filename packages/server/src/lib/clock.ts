/** The source of time for everything that schedules: injected so tests can run on a fake clock. */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };
