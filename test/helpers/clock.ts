// Time in tests: the code under test reads this clock instead of Date.now, and the test moves it,
// so that "a second later" takes no second and cannot come early or late on a loaded machine.

export class TestClock {
  constructor(private ms = Date.parse("2024-06-01T12:00:00Z")) {}

  /** Pass as the `now` of the code under test. */
  readonly now = (): number => this.ms;

  /** Moves the clock on; nothing runs in between, so nothing is missed or early. */
  advance(ms: number): void {
    this.ms += ms;
  }

  date(): Date {
    return new Date(this.ms);
  }
}
