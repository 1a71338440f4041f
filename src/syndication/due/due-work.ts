import type { SyndicationParts } from "../parts.ts";
import { checkTargets } from "../runs/target-checks.ts";
import { TargetPauses } from "../runs/target-pauses.ts";
import { type DueRules, nextDue, nextLiveCheck } from "./due.ts";
import { sweepLiveChecks } from "./live-check-sweep.ts";

/** A pause longer than this is told to the user (once per streak), whatever its cause. */
const PAUSED_LONG_MS = 86_400_000;

export class DueWork {
  constructor(private readonly parts: SyndicationParts) {}

  /**
   * When the scheduler next has something to do (see nextDue in due.ts): a moment, possibly
   * past, or null when nothing waits at all.
   */
  async nextDue(): Promise<Date | null> {
    return (await this.dueMoments()).next;
  }

  /**
   * What the scheduler needs at a wake-up: `run`, when a run next has something to send (a paused
   * target makes nothing due); `next`, the earliest of that, the next live check of a new post
   * (made by sweepLiveChecks, not by a run) and the end of a pause.
   */
  async dueMoments(): Promise<{ run: Date | null; next: Date | null }> {
    const { rules, pauses } = await this.dueRules();
    const [run, check] = await Promise.all([
      nextDue(this.parts.deps.database, rules, this.parts.databaseNow),
      nextLiveCheck(this.parts.deps.database, rules),
    ]);
    const moments = [run, check, ...pauses.ends()].filter((moment): moment is Date => moment !== null);
    const next = moments.length === 0 ? null : new Date(Math.min(...moments.map((m) => m.getTime())));
    return { run, next };
  }

  /**
   * The scheduler's live checks of new posts (schedule.whenLive), outside any run: no lease, no
   * run record, no event (see live-check-sweep.ts). Returns how many pages were checked.
   */
  async sweepLiveChecks(): Promise<number> {
    if (!this.parts.scheduleRules.whenLive) return 0;
    const { rules } = await this.dueRules();
    return sweepLiveChecks({
      database: this.parts.deps.database,
      liveChecks: this.parts.liveChecks,
      checkLive: (url) => this.parts.checkLive(url),
      rules,
      now: this.parts.databaseNow,
    });
  }

  /**
   * The scheduler's check of refused targets (decision 0048): each whose next check is due is asked
   * (verify) and what it says recorded; a success ends its pause on every instance. Returns how
   * many were checked.
   */
  async checkPausedTargets(): Promise<number> {
    const now = this.parts.clock();
    const syndicators = this.parts.deps.syndicators();
    const health = await this.parts.health.all();
    const pauses = TargetPauses.lasting(syndicators, health, this.parts.backoff, this.parts.clock);
    for (const syndicator of syndicators) {
      const { uid, name } = syndicator.info;
      const since = health.get(uid)?.refusedSince ?? health.get(uid)?.errorAt;
      if (pauses.get(uid, now) && since && now - since.getTime() > PAUSED_LONG_MS)
        this.parts.deps.notices?.failure({
          kind: "paused_long",
          targetUid: uid,
          targetName: name,
          error: pauses.get(uid, now)?.reason ?? "",
        });
    }
    const due = syndicators.filter((s) => {
      const pause = pauses.get(s.info.uid, now);
      return pause?.kind === "refused" && (pause.checkAt?.getTime() ?? 0) <= now;
    });
    if (due.length > 0)
      await checkTargets(
        due,
        this.parts.health,
        this.parts.deps.logger,
        this.parts.targetTimeoutMs,
        this.parts.deps.notices,
      );
    return due.length;
  }

  /**
   * The scheduler's upkeep of credentials that expire (SyndicatorPlugin.maintainCredentials): each
   * target that has it renews what is due, and one that nears its end unrenewed is told to the
   * user, once per end date and process. Never throws.
   */
  async maintainCredentials(): Promise<void> {
    for (const syndicator of this.parts.deps.syndicators()) {
      if (!syndicator.maintainCredentials) continue;
      const { uid, name } = syndicator.info;
      try {
        const expiry = await syndicator.maintainCredentials({
          signal: AbortSignal.timeout(this.parts.targetTimeoutMs),
        });
        const told = `${uid} ${expiry?.expiresAt.toISOString()}`;
        if (!expiry || this.#toldExpiring.has(told)) continue;
        this.#toldExpiring.add(told);
        this.parts.deps.notices?.failure({
          kind: "expiring",
          targetUid: uid,
          targetName: name,
          error: expiry.error,
          expiresAt: expiry.expiresAt,
          ...(syndicator.holdWhileRefused === true ? { reconnect: true } : {}),
        });
      } catch (error) {
        this.parts.deps.logger.warn("Could not keep a target's credentials", {
          target: uid,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  readonly #toldExpiring = new Set<string>();

  private async dueRules(): Promise<{ rules: DueRules; pauses: TargetPauses }> {
    const pauses = TargetPauses.lasting(
      this.parts.deps.syndicators(),
      await this.parts.health.all(),
      this.parts.backoff,
      this.parts.clock,
    );
    const paused = new Set(pauses.uids());
    const rules: DueRules = {
      staleMs: this.parts.staleMs,
      afterPublishMs: this.parts.scheduleRules.afterPublishMs,
      whenLive: this.parts.scheduleRules.whenLive,
      targetUids: this.parts.targetUids().filter((uid) => !paused.has(uid)),
    };
    return { rules, pauses };
  }
}
