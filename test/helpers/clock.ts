// Time in tests: the code under test reads this clock instead of Date.now, and the test moves it,
// so that "a second later" takes no second and cannot come early or late on a loaded machine. Work
// the code would time with setTimeout or setInterval it gives to `after` or `every`: it runs as the
// clock passes its moment, never in real time.

interface Timer {
  nextAt: number;
  /** Undefined for a one-shot timer. */
  periodMs: number | undefined;
  tick: () => void;
}

export class TestClock {
  private readonly timers = new Set<Timer>();

  constructor(private ms = Date.parse("2024-06-01T12:00:00Z")) {}

  /** Pass as the `now` of the code under test. */
  readonly now = (): number => this.ms;

  /** Like setInterval: `tick` each time `advance` passes another `periodMs`. Returns the cancel. */
  readonly every = (periodMs: number, tick: () => void): (() => void) => this.add(periodMs, periodMs, tick);

  /** Like setTimeout: `done` once `advance` passes `ms` from now. Returns the cancel. */
  readonly after = (ms: number, done: () => void): (() => void) => this.add(ms, undefined, done);

  /** How far off the earliest pending timer is, or undefined when none is pending. */
  nextTimerIn(): number | undefined {
    const next = this.earliest(Number.POSITIVE_INFINITY);
    return next ? next.nextAt - this.ms : undefined;
  }

  /**
   * Moves the clock on; nothing runs in between, so nothing is missed or early. Timers due on the
   * way are called in order, each with the clock at its moment.
   */
  advance(ms: number): void {
    const end = this.ms + ms;
    for (let next = this.earliest(end); next; next = this.earliest(end)) {
      this.ms = next.nextAt;
      if (next.periodMs === undefined) this.timers.delete(next);
      else next.nextAt += next.periodMs;
      next.tick();
    }
    this.ms = end;
  }

  date(): Date {
    return new Date(this.ms);
  }

  private add(inMs: number, periodMs: number | undefined, tick: () => void): () => void {
    const timer = { nextAt: this.ms + inMs, periodMs, tick };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  private earliest(notAfter: number): Timer | undefined {
    let found: Timer | undefined;
    for (const timer of this.timers)
      if (timer.nextAt <= notAfter && (!found || timer.nextAt < found.nextAt)) found = timer;
    return found;
  }
}
