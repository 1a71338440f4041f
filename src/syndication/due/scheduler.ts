// The scheduler: every server instance runs one, so that what is due is sent without anyone
// asking (decision 0014). It sleeps until the earliest due moment (see due.ts), never longer than
// maxSleepMs so that work written by other instances is found, and never polls: one query per
// wake-up. When something is due it starts an ordinary batch under the shared lease, recorded with
// the trigger `schedule`; if another run holds the lease it simply looks again when that lapses.
// Sources that learn of posts by asking (feeds, remote Micropub servers: PolledSource) get their
// turn at each wake-up, and the sleep ends at the earliest of their next polls too.
import type { Logger } from "../../contract/logger.ts";
import type { PolledSource } from "../../contract/polled-source.ts";
import { backoffMs } from "../../net/backoff.ts";
import { SyndicationInProgressError, SyndicationShuttingDownError } from "../errors.ts";
import type { Syndication } from "../syndication.ts";
import type { RunSummary } from "../types.ts";

export const DEFAULT_MAX_SLEEP_MS = 60_000;
/** After a run that left something due at once, the next waits 1 s, 2 s, 4 s … up to maxSleepMs (src/net/backoff.ts). */
const FIRST_HOLD_OFF_MS = 1_000;

/** Calls `done` once, `ms` from now, unless the function it returns is called first. */
export type After = (ms: number, done: () => void) => () => void;

/** Real time: a timer that does not keep a process alive that has nothing else to do. */
const afterRealDelay: After = (ms, done) => {
  const timer = setTimeout(done, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export interface SchedulerOptions {
  /** The longest sleep, so that work written by other instances is found (default one minute). */
  maxSleepMs?: number;
  /** Milliseconds since the epoch, that due moments are compared with (Date.now unless a test gives
   * its clock). */
  clock?: () => number;
  /** How the scheduler sleeps (a real timer unless a test gives its clock's, which moves instead). */
  after?: After;
  /** The sources to give a turn at each wake-up (read each time: sources may come and go). */
  polled?: () => readonly PolledSource[];
}

export interface SchedulerState {
  running: boolean;
  /** The earliest due moment found at the last wake-up (null: nothing waits). */
  nextDueAt: Date | null;
  /** Times the scheduler woke up (each wake-up is one query). */
  wakeUps: number;
  lastRun: { runId: string; startedAt: Date; finishedAt: Date | null; summary: RunSummary | null } | null;
  lastError: string | null;
}

/** The earlier of two moments, either of which may be absent. */
function earliest(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() <= b.getTime() ? a : b;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class Scheduler {
  private readonly maxSleepMs: number;
  private readonly polled: () => readonly PolledSource[];
  private readonly clock: () => number;
  private readonly after: After;
  private stopped = true;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private nudged = false;
  /** Runs in a row that left something due at once; each doubles the next hold-off. */
  private holdOffs = 0;
  private readonly current: SchedulerState = {
    running: false,
    nextDueAt: null,
    wakeUps: 0,
    lastRun: null,
    lastError: null,
  };

  constructor(
    private readonly syndication: Syndication,
    private readonly logger: Logger,
    options: SchedulerOptions = {},
  ) {
    this.maxSleepMs = Math.max(1, options.maxSleepMs ?? DEFAULT_MAX_SLEEP_MS);
    this.polled = options.polled ?? (() => []);
    this.clock = options.clock ?? Date.now;
    this.after = options.after ?? afterRealDelay;
  }

  /** What /health reports. */
  state(): SchedulerState {
    return { ...this.current, lastRun: this.current.lastRun ? { ...this.current.lastRun } : null };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.current.running = true;
    this.loop = this.run();
  }

  /** Something may have become due (a new post): look now rather than at the next wake-up. */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  /** Stops sleeping and starting runs; a run in progress is stopped by Syndication.runs.shutdown. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.current.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.current.wakeUps += 1;
      this.nudged = false;
      let due: Date | null = null;
      let runDue: Date | null = null;
      // Before what is due is read: a post a poll records may be due at once.
      await this.pollSources();
      if (this.stopped) break;
      try {
        // A refused target is checked when its check is due (with backoff), and the pages of new
        // posts when theirs is: neither is a run, neither takes the lease (decision 0049).
        await this.syndication.due.checkPausedTargets();
        await this.syndication.due.maintainCredentials();
        await this.syndication.due.sweepLiveChecks();
        ({ next: due, run: runDue } = await this.syndication.due.dueMoments());
        this.current.nextDueAt = due;
      } catch (error) {
        this.fail("Could not find out what is due", error);
      }
      if (this.stopped) break;
      if (runDue && runDue.getTime() <= this.clock()) {
        const summary = await this.startRun();
        if (this.stopped) break;
        // A run that leaves something due at once (a target paused for the run, a post naming a
        // target it cannot send) must not be repeated back to back: hold off, doubling each time.
        const moments = await this.syndication.due.dueMoments().catch(() => ({ next: null, run: null }));
        const after = moments.next;
        // Whoever sees the run's end sees what is due after it.
        this.current.nextDueAt = after;
        if (summary && this.current.lastRun)
          this.current.lastRun = { ...this.current.lastRun, finishedAt: new Date(), summary };
        if (moments.run && moments.run.getTime() <= this.clock() && !this.nudged) {
          const holdOffMs = backoffMs({ baseMs: FIRST_HOLD_OFF_MS, maxMs: this.maxSleepMs }, this.holdOffs);
          this.holdOffs += 1;
          await this.sleep(holdOffMs);
        } else {
          this.holdOffs = 0;
          // What is due after the run is known: sleep until then rather than asking again at once.
          await this.sleepUntil(earliest(after, this.nextPollAt()));
        }
        continue;
      }
      await this.sleepUntil(earliest(due, this.nextPollAt()));
    }
  }

  /** Gives each polled source its turn, one after another; one that fails never stops the others. */
  private async pollSources(): Promise<void> {
    for (const source of this.polled()) {
      if (this.stopped) return;
      try {
        await source.pollIfDue();
      } catch (error) {
        this.logger.error(`Could not poll ${source.origin}`, { error: describe(error) });
      }
    }
  }

  /** The earliest next poll of the polled sources (null: none wants one). */
  private nextPollAt(): Date | null {
    return this.polled().reduce<Date | null>(
      (soonest, source) => earliest(soonest, source.nextPollAt()),
      null,
    );
  }

  /** Sleeps until `due` (at most maxSleepMs; maxSleepMs when nothing is due), or a nudge. */
  private sleepUntil(due: Date | null): Promise<void> {
    const untilDue = due ? due.getTime() - this.clock() : this.maxSleepMs;
    return this.sleep(Math.min(this.maxSleepMs, Math.max(1, untilDue)));
  }

  /** Starts a scheduled run and waits for its end; its summary, or null when none ran. */
  private async startRun(): Promise<RunSummary | null> {
    try {
      const run = await this.syndication.runs.startBatch("schedule");
      this.current.lastRun = { runId: run.id, startedAt: run.startedAt, finishedAt: null, summary: null };
      const summary = await run.done;
      this.current.lastError = null;
      return summary;
    } catch (error) {
      // Another run (here, in another instance or the CLI) has the lease: the next wake-up comes
      // when it lapses at the latest, since the lease's expiry is a due moment.
      if (error instanceof SyndicationInProgressError || error instanceof SyndicationShuttingDownError) {
        const retryMs =
          error instanceof SyndicationInProgressError ? error.retryAfterSeconds * 1000 : this.maxSleepMs;
        await this.sleep(Math.min(this.maxSleepMs, retryMs));
        return null;
      }
      this.fail("The scheduled syndication run failed", error);
      return null;
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped || this.nudged) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let cancel = () => {};
      const done = () => {
        cancel();
        resolve();
      };
      cancel = this.after(ms, done);
      this.wake = done;
    }).finally(() => {
      this.wake = null;
    });
  }

  private fail(what: string, error: unknown): void {
    this.current.lastError = describe(error);
    this.logger.error(what, { error: describe(error) });
  }
}
