// Time in tests: the code under test reads this clock instead of Date.now, and the test moves it,
// so that "a second later" takes no second and cannot come early or late on a loaded machine.

interface Repeating {
  periodMs: number;
  nextAt: number;
  tick: () => void;
}

export class TestClock {
  private readonly repeating = new Set<Repeating>();

  constructor(private ms = Date.parse("2024-06-01T12:00:00Z")) {}

  /** Pass as the `now` of the code under test. */
  readonly now = (): number => this.ms;

  /**
   * Pass where the code under test repeats work on a timer (the lease's renewals): `tick` is called
   * each time `advance` passes another `periodMs`, never in real time.
   */
  readonly every = (periodMs: number, tick: () => void): (() => void) => {
    const repeating = { periodMs, nextAt: this.ms + periodMs, tick };
    this.repeating.add(repeating);
    return () => this.repeating.delete(repeating);
  };

  /**
   * Moves the clock on; nothing runs in between, so nothing is missed or early. Repeating work due
   * on the way is called in order, each with the clock at its moment.
   */
  advance(ms: number): void {
    const end = this.ms + ms;
    for (;;) {
      const next = [...this.repeating]
        .filter((repeating) => repeating.nextAt <= end)
        .sort((a, b) => a.nextAt - b.nextAt)[0];
      if (!next) break;
      this.ms = next.nextAt;
      next.nextAt += next.periodMs;
      next.tick();
    }
    this.ms = end;
  }

  date(): Date {
    return new Date(this.ms);
  }
}
