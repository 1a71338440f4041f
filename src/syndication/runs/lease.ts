// The batch lease: at most one batch run at a time across every process and instance sharing the
// database. It lives in a row that expires unless its holder renews it, so a process that dies
// (SIGKILL, power loss) never wedges the endpoint: its lease simply lapses. The database's clock
// decides when (instances with skewed clocks agree); a test's clock, when given, is passed into the
// SQL as a parameter instead, and times the renewals, so a lease lapses without a real wait.
import type { Database, Queryable } from "../../contract/database.ts";
import type { Logger } from "../../contract/logger.ts";
import { type DatabaseNow, databaseNow, sqlNow } from "../database-now.ts";
import type { RunInProgress, Trigger } from "../types.ts";

export const DEFAULT_LEASE_MS = 30_000;
const BATCH_LEASE = "batch";

/** Calls `tick` every `periodMs` until the function it returns is called. */
export type Every = (periodMs: number, tick: () => void) => () => void;

/** Real time: a timer that does not keep a finished command-line process alive. */
export const everyRealPeriod: Every = (periodMs, tick) => {
  const timer = setInterval(tick, periodMs);
  timer.unref();
  return () => clearInterval(timer);
};

/** What times a lease: the database's clock and real timers unless a test gives its own. */
export interface LeaseTime {
  /** Milliseconds since the epoch; when given, the SQL uses it instead of the database's now(). */
  clock?: () => number;
  /** How renewals are timed (everyRealPeriod unless given). */
  every?: Every;
}

interface LeaseRow {
  run_id: string | null;
  holder: string;
  trigger: Trigger;
  acquired_at: Date;
  expires_at: Date;
  retry_after: number;
}

export interface LeaseStatus extends RunInProgress {
  /** Seconds until the lease lapses if its holder stops renewing it (at least 1). */
  retryAfterSeconds: number;
}

export class Lease {
  private readonly now: DatabaseNow;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    /** How long the lease lasts without renewal; renewed every third of it. */
    readonly durationMs: number = DEFAULT_LEASE_MS,
    private readonly name: string = BATCH_LEASE,
    private readonly time: LeaseTime = {},
  ) {
    this.now = databaseNow(time.clock);
  }

  /**
   * Takes the lease if it is free or expired. `startRun` runs in the same transaction and returns
   * the id of the run the lease is for, so the lease never names a run that does not exist.
   * Returns null when a live holder has it.
   */
  async acquire(
    holder: string,
    trigger: Trigger,
    startRun: (tx: Queryable) => Promise<string>,
  ): Promise<HeldLease | null> {
    return this.database.transaction(async (tx) => {
      // An expired lease is taken over by UPDATE; a missing one is created by INSERT … DO NOTHING.
      // Neither locks or writes anything when it refuses (an ON CONFLICT DO UPDATE … WHERE would
      // lock the row and write WAL even when its WHERE fails, making concurrent refusals queue).
      // Of two racing takers exactly one gets a row: the UPDATE re-checks its WHERE on the row the
      // other committed, and the unique name lets only one INSERT through.
      const now = this.now();
      let taken = await tx.query<{ expires_at: Date }>(
        `UPDATE syndication_lease
            SET holder = $2, run_id = NULL, trigger = $3, acquired_at = ${sqlNow(5)},
                expires_at = ${sqlNow(5)} + $4::int * interval '1 millisecond'
          WHERE name = $1 AND expires_at < ${sqlNow(5)}
         RETURNING expires_at`,
        [this.name, holder, trigger, this.durationMs, now],
      );
      if (taken.rows.length === 0) {
        taken = await tx.query<{ expires_at: Date }>(
          `INSERT INTO syndication_lease (name, holder, run_id, trigger, acquired_at, expires_at)
           VALUES ($1, $2, NULL, $3, ${sqlNow(5)}, ${sqlNow(5)} + $4::int * interval '1 millisecond')
           ON CONFLICT (name) DO NOTHING
           RETURNING expires_at`,
          [this.name, holder, trigger, this.durationMs, now],
        );
      }
      if (taken.rows.length === 0) return null;
      const runId = await startRun(tx);
      await tx.query("UPDATE syndication_lease SET run_id = $2::bigint WHERE name = $1", [this.name, runId]);
      return new HeldLease(this.database, this.logger, this.name, runId, holder, this.durationMs, this.time);
    });
  }

  /**
   * Removes the lease whoever holds it: only for a database no other process can use (the
   * embedded one at start), where any lease left was held by a process that is gone.
   */
  async clear(): Promise<void> {
    await this.database.query("DELETE FROM syndication_lease WHERE name = $1", [this.name]);
  }

  /** The live lease ("in progress since when, by what"), or null when no batch is running. */
  async current(): Promise<LeaseStatus | null> {
    const result = await this.database.query<LeaseRow>(
      `SELECT run_id::text AS run_id, holder, trigger, acquired_at, expires_at,
              GREATEST(1, CEIL(EXTRACT(EPOCH FROM (expires_at - ${sqlNow(2)}))))::int AS retry_after
         FROM syndication_lease
        WHERE name = $1 AND expires_at > ${sqlNow(2)}`,
      [this.name, this.now()],
    );
    const row = result.rows[0];
    if (!row) return null;
    return {
      runId: row.run_id ?? "",
      trigger: row.trigger,
      holder: row.holder,
      since: row.acquired_at,
      expiresAt: row.expires_at,
      retryAfterSeconds: row.retry_after,
    };
  }
}

/** A lease this process holds for one run. */
export class HeldLease {
  private stopRenewing: (() => void) | undefined;
  private renewing = false;
  /** A tick came while renewing: renew once more when that renewal ends. */
  // Stryker disable next-line BooleanLiteral: renewNow sets it false before any renewal reads it.
  private renewAgain = false;
  private released = false;
  private lostFlag = false;
  /** Local clock time until which the last successful renewal guarantees the lease. */
  private guaranteedUntil: number;
  private readonly clock: () => number;
  private readonly now: DatabaseNow;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly name: string,
    readonly runId: string,
    readonly holder: string,
    private readonly durationMs: number,
    private readonly time: LeaseTime = {},
  ) {
    this.clock = time.clock ?? Date.now;
    this.now = databaseNow(time.clock);
    this.guaranteedUntil = this.clock() + durationMs;
  }

  /** True once a renewal found the lease taken by someone else, or could not renew it in time. */
  get lost(): boolean {
    return this.lostFlag;
  }

  /** Renews every third of the lease until released; calls onLost once if the lease is lost. */
  keepAlive(onLost: () => void): void {
    if (this.stopRenewing || this.released) return;
    const period = Math.max(1, Math.floor(this.durationMs / 3));
    const every = this.time.every ?? everyRealPeriod;
    // A tick that comes while a renewal is under way is kept, not dropped: one more renewal follows
    // it, from the time of that tick on (a slow database would otherwise let ticks pass unused).
    const renewNow = (): void => {
      this.renewing = true;
      this.renewAgain = false;
      this.renew()
        .then((kept) => {
          if (!kept && !this.released) {
            this.stopTimer();
            onLost();
          }
        })
        .finally(() => {
          this.renewing = false;
          if (this.renewAgain && !this.lostFlag && !this.released) renewNow();
        });
    };
    this.stopRenewing = every(period, () => {
      if (this.lostFlag) return;
      if (this.renewing) this.renewAgain = true;
      else renewNow();
    });
  }

  /** Extends the lease; false when it is no longer ours. */
  async renew(): Promise<boolean> {
    if (this.released || this.lostFlag) return false;
    const startedAt = this.clock();
    try {
      // Matching the run id (unique) makes sure we never extend a lease someone else took over.
      const result = await this.database.query(
        `UPDATE syndication_lease SET expires_at = ${sqlNow(4)} + $3::int * interval '1 millisecond'
          WHERE name = $1 AND run_id = $2::bigint`,
        [this.name, this.runId, this.durationMs, this.now()],
      );
      if (result.rowCount === 1) {
        this.guaranteedUntil = startedAt + this.durationMs;
        return true;
      }
      this.logger.warn("The syndication lease was taken over; this run stops after its current post", {
        runId: this.runId,
      });
      this.lostFlag = true;
      return false;
    } catch (error) {
      // The database is unreachable for now: the lease still holds until its last expiry.
      if (this.clock() < this.guaranteedUntil) {
        this.logger.warn("Could not renew the syndication lease; will try again", {
          runId: this.runId,
          error: error instanceof Error ? error.message : String(error),
        });
        return true;
      }
      this.logger.error("The syndication lease expired before it could be renewed; this run stops", {
        runId: this.runId,
      });
      this.lostFlag = true;
      return false;
    }
  }

  /** Stops renewing and frees the lease for the next run (if it is still ours). */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.stopTimer();
    await this.database.query("DELETE FROM syndication_lease WHERE name = $1 AND run_id = $2::bigint", [
      this.name,
      this.runId,
    ]);
  }

  private stopTimer(): void {
    this.stopRenewing?.();
    this.stopRenewing = undefined;
  }
}
