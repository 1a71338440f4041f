// A post source that learns of posts by asking (a feed, a remote Micropub server): the scheduler
// (src/syndication/due/scheduler.ts) asks it at each wake-up whether it is due, and sleeps no longer
// than until its next poll. The source keeps its own clock, interval, backoff and errors; the
// scheduler only gives it a turn, so that polling needs no timer, thread or loop of its own.
//
// @example
// const source: PolledSource = {
//   origin: "micropub:blog",
//   nextPollAt: () => next,
//   async pollIfDue() { if (Date.now() >= next.getTime()) { await poll(); next = new Date(Date.now() + 300_000); } },
// };
export interface PolledSource {
  /** Names it in the scheduler's log lines, e.g. `micropub:blog`. */
  readonly origin: string;
  /** When it wants its next turn; null when it needs none until something else changes. */
  nextPollAt(): Date | null;
  /**
   * Polls if it is due by its own clock (and, where instances share a database, if no other
   * instance took this turn); does nothing otherwise. What the remote answers, it keeps for the page
   * and /health rather than throwing: a throw is logged by the scheduler as its own failure.
   */
  pollIfDue(): Promise<void>;
}
