// Within one run, a target that said "slow down" (429) or "you may not" (401, 403) is not asked
// again for the next posts: the service would answer the same, and a burst of refusals can get an
// account limited further or flagged. The other targets go on. The pause ends with the run; the
// ledger's next attempt time (the service's own reset time, for a 429) carries it further.

export interface TargetPause {
  /** Why the target is not being sent to, as the results and the page say it. */
  reason: string;
  /** When the service said it would accept requests again, if it said. */
  until?: Date;
}

/** The failures after which the rest of the run leaves a target alone. */
const pausingStatuses = new Set([401, 403, 429]);

export class TargetPauses {
  readonly #pauses = new Map<string, TargetPause>();

  /** The pause a failure starts, if it starts one. */
  static after(
    failure: { status?: number; retryAt?: Date; error: string },
    targetName: string,
    /** Where its credentials are set, to name in a refusal. */
    setting?: string,
  ) {
    if (failure.status === undefined || !pausingStatuses.has(failure.status)) return undefined;
    if (failure.status === 429) {
      const until = failure.retryAt;
      const when = until ? ` until ${until.toISOString()}` : "";
      return {
        reason: `${targetName} is rate limited${when}; not sent in this run (${failure.error})`,
        ...(until ? { until } : {}),
      } satisfies TargetPause;
    }
    return {
      reason: `${targetName} refused this run's credentials; not sent in this run until ${setting ?? "the setting"} is fixed (${failure.error})`,
    } satisfies TargetPause;
  }

  pause(uid: string, pause: TargetPause): void {
    if (!this.#pauses.has(uid)) this.#pauses.set(uid, pause);
  }

  /** The pause on a target, unless its `until` has passed. */
  get(uid: string, now = Date.now()): TargetPause | undefined {
    const pause = this.#pauses.get(uid);
    if (pause?.until && pause.until.getTime() <= now) {
      this.#pauses.delete(uid);
      return undefined;
    }
    return pause;
  }
}
