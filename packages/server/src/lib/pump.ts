import type { Clock } from './clock.ts';

/** What one round of a background loop reports: when it wants to run again. */
export type PumpResult = { again: 'now' } | { again: 'at'; at: number } | { again: 'idle' };

/**
 * A background loop that runs `round` one at a time: at once when woken
 * (several wake-ups while a round runs coalesce into one more round), at the
 * time the round asked for, and at least every `pollMs` so work that another
 * process queued is found. `stop` waits for the running round to finish.
 */
export class Pump {
  readonly #round: () => Promise<PumpResult>;
  readonly #clock: Clock;
  readonly #pollMs: number;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = true;

  constructor(options: {
    round: () => Promise<PumpResult>;
    clock: Clock;
    pollMs: number;
    onError: (error: unknown) => void;
  }) {
    this.#round = options.round;
    this.#clock = options.clock;
    this.#pollMs = options.pollMs;
    this.#onError = options.onError;
  }

  /** Starts the loop with an immediate round. */
  start(): void {
    this.#stopped = false;
    this.wake();
  }

  /** Asks for a round as soon as possible. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#clearTimer();
    this.#running = this.#run();
  }

  /** Stops scheduling rounds and waits for the current one. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clearTimer();
    if (this.#running) await this.#running;
  }

  async #run(): Promise<void> {
    let result: PumpResult;
    try {
      result = await this.#round();
    } catch (error) {
      this.#onError(error);
      // A failing round (the database restarting, say) is retried after a pause, not in a hot loop.
      result = { again: 'at', at: this.#clock.now() + Math.min(this.#pollMs, 1000) };
    }
    this.#running = null;
    if (this.#stopped) return;
    if (this.#again || result.again === 'now') {
      this.#again = false;
      // setImmediate lets the event loop serve requests between rounds.
      this.#timer = setTimeout(() => this.wake(), 0);
      return;
    }
    const wait =
      result.again === 'at'
        ? Math.max(0, Math.min(result.at - this.#clock.now(), this.#pollMs))
        : this.#pollMs;
    this.#timer = setTimeout(() => this.wake(), wait);
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
