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
  /** When the timer fires (clock time), while one is set. */
  #timerAt = Infinity;
  /** The earliest time asked for by `wakeAt` while a round ran. */
  #wantedAt = Infinity;
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

  /**
   * Asks for a round at `at` (clock time) at the latest, on a timer even when that
   * is now: the caller's current turn finishes first. A round in flight, or a timer
   * set for sooner, already covers it; a round asks for its own next time anyway.
   */
  wakeAt(at: number): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#wantedAt = Math.min(this.#wantedAt, at);
      return;
    }
    if (at < this.#timerAt) this.#setTimer(Math.max(0, at - this.#clock.now()));
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
      this.#wantedAt = Infinity;
    }
    this.#running = null;
    if (this.#stopped) return;
    if (this.#again || result.again === 'now') {
      this.#again = false;
      this.#wantedAt = Infinity;
      // A timer, not a loop: the event loop serves requests between rounds.
      this.#setTimer(0);
      return;
    }
    const at = Math.min(result.again === 'at' ? result.at : Infinity, this.#wantedAt);
    this.#wantedAt = Infinity;
    this.#setTimer(Math.max(0, Math.min(at - this.#clock.now(), this.#pollMs)));
  }

  #setTimer(ms: number): void {
    this.#clearTimer();
    this.#timerAt = this.#clock.now() + ms;
    this.#timer = setTimeout(() => this.wake(), ms);
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Infinity;
  }
}
