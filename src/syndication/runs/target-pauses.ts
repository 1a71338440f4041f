// A target that said "you may not" (401, 403) or "slow down" (429) is not sent to until it can take
// posts (decision 0048): the service would answer the same, and a burst of refusals can get an account
// limited further or flagged. The pause outlives the run and the process, because it is read from
// the target health in the database (target-health.ts), which every instance shares:
// - refused (401, 403): until a check of the target succeeds: the page's "Check now", a user's
//   retry (which checks first), or the scheduler's own check, after as long again as the target has
//   been refused (between the retry backoff's base and maximum). A target that cannot be checked
//   without sending (no verify()) gets one send as its check at that moment.
// - rate limited (429): until the reset time the service named.
// Within a run, the first such answer pauses the target for the rest of the run at once.
import type { SyndicatorPlugin } from "../../contract/index.ts";
import type { Backoff } from "../ledger/claims.ts";
import type { TargetHealth } from "./target-health.ts";

export interface TargetPause {
  kind: "refused" | "rate_limited";
  /** "Paused: <target> <reason>, until <time>", as the results and the page say it. */
  reason: string;
  /** When the pause ends by itself (a 429's reset time), if it does. */
  until?: Date;
  /** For a refusal: when the target is next checked (by the scheduler, or by one send). */
  checkAt?: Date;
}

/** The failures after which a target is left alone. */
const pausingStatuses = new Set([401, 403, 429]);

/**
 * When a refused target is next checked: as long after its last try as it has been refused by
 * then, at least the backoff's base and at most its maximum (1, 1, 2, 4 … minutes by default).
 */
export function nextCheckAt(health: TargetHealth, backoff: Backoff): Date | null {
  if (!health.refusedSince) return null;
  const since = health.refusedSince.getTime();
  const last = Math.max(since, health.checkedAt?.getTime() ?? 0, health.errorAt?.getTime() ?? 0);
  const wait = Math.min(backoff.maxMs, Math.max(backoff.baseMs, last - since));
  return new Date(last + wait);
}

function refusedReason(name: string, error: string | null, setting: string | undefined, checkAt?: Date) {
  const why = error ? ` (${error})` : "";
  const fix = `fix ${setting ?? "its credentials"}, then Check now on the syndication page`;
  const next = checkAt ? `; next automatic check at ${checkAt.toISOString()}` : "";
  return `Paused: ${name} refused the credentials${why}, until a check succeeds (${fix}${next})`;
}

function rateLimitedReason(name: string, error: string | null, until: Date | undefined) {
  const why = error ? ` (${error})` : "";
  return `Paused: ${name} is rate limited${why}, until ${until ? until.toISOString() : "its reset"}`;
}

/** What the target health says of a target now: the pause that lasts, or none. */
export function lastingPause(
  syndicator: SyndicatorPlugin,
  health: TargetHealth | undefined,
  backoff: Backoff,
  now: number,
  /** A user's retry: a target that cannot be checked is sent to, as its check. */
  userRetry = false,
): TargetPause | undefined {
  if (!health) return undefined;
  const { name } = syndicator.info;
  if (health.refusedSince) {
    const checkAt = nextCheckAt(health, backoff) ?? new Date(now);
    // Without verify(), the next send is the check: when it is due, or when the user asks.
    if (typeof syndicator.verify !== "function" && (userRetry || checkAt.getTime() <= now)) return undefined;
    return {
      kind: "refused",
      reason: refusedReason(name, health.error, syndicator.credentialSetting, checkAt),
      checkAt,
    };
  }
  // Kept until `until`: TargetPauses.get drops it then.
  const until = health.rateLimitedUntil;
  return until
    ? { kind: "rate_limited", reason: rateLimitedReason(name, health.error, until), until }
    : undefined;
}

export class TargetPauses {
  readonly #pauses = new Map<string, TargetPause>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** The pauses the target health holds now, for a run (or the scheduler) to start from. */
  static lasting(
    syndicators: readonly SyndicatorPlugin[],
    health: ReadonlyMap<string, TargetHealth>,
    backoff: Backoff,
    clock: () => number = Date.now,
    userRetry = false,
  ): TargetPauses {
    const pauses = new TargetPauses(clock);
    const now = clock();
    for (const syndicator of syndicators) {
      const pause = lastingPause(syndicator, health.get(syndicator.info.uid), backoff, now, userRetry);
      if (pause) pauses.pause(syndicator.info.uid, pause);
    }
    return pauses;
  }

  /** The pause a failure starts, if it starts one. */
  static after(
    failure: { status?: number; retryAt?: Date; error: string },
    targetName: string,
    /** Where its credentials are set, to name in a refusal. */
    setting?: string,
  ): TargetPause | undefined {
    if (failure.status === undefined || !pausingStatuses.has(failure.status)) return undefined;
    if (failure.status === 429) {
      const until = failure.retryAt;
      return {
        kind: "rate_limited",
        reason: rateLimitedReason(targetName, failure.error, until),
        ...(until ? { until } : {}),
      };
    }
    return { kind: "refused", reason: refusedReason(targetName, failure.error, setting) };
  }

  pause(uid: string, pause: TargetPause): void {
    if (!this.#pauses.has(uid)) this.#pauses.set(uid, pause);
  }

  /** The pause on a target, unless its `until` has passed. */
  get(uid: string, now = this.clock()): TargetPause | undefined {
    const pause = this.#pauses.get(uid);
    if (pause?.until && pause.until.getTime() <= now) {
      this.#pauses.delete(uid);
      return undefined;
    }
    return pause;
  }

  /** The paused targets' uids now. */
  uids(now = this.clock()): string[] {
    return [...this.#pauses.keys()].filter((uid) => this.get(uid, now) !== undefined);
  }

  /** Every pause in force now, by target uid. */
  entries(now = this.clock()): [string, TargetPause][] {
    return this.uids(now).map((uid) => [uid, this.#pauses.get(uid) as TargetPause]);
  }

  /** The moments a pause ends or its target is checked, after `now`: when the scheduler looks again. */
  ends(now = this.clock()): Date[] {
    return this.entries(now)
      .map(([, pause]) => pause.until ?? pause.checkAt)
      .filter((moment): moment is Date => moment !== undefined && moment.getTime() > now);
  }
}
