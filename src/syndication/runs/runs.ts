import { Listeners } from "../../contract/listeners.ts";
import { type Post, PostNotFoundError } from "../../contract/posts.ts";
import { SyndicationInProgressError, SyndicationShuttingDownError } from "../errors.ts";
import type { SyndicationParts } from "../parts.ts";
import { syndicationUrls } from "../post-targets.ts";
import type { PostResult, SyndicationEvent, Trigger } from "../types.ts";
import { Batch, type BatchRun } from "./batch.ts";
import type { LeaseStatus } from "./lease.ts";
import { countInto, emptySummary } from "./post-result.ts";
import { PostRunner } from "./post-runner.ts";
import { checkTargets, type TargetStatus, targetStatuses } from "./target-checks.ts";
import { TargetPauses } from "./target-pauses.ts";

export class Runs {
  private readonly batches = new Set<Batch>();
  private readonly singles = new Set<Promise<unknown>>();
  /** A listener's fault (a closed page stream) must not disturb a run. */
  private readonly listeners = new Listeners<SyndicationEvent>((error) =>
    this.parts.deps.logger.warn("A syndication event listener failed", {
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  private shuttingDown = false;

  constructor(private readonly parts: SyndicationParts) {}

  /**
   * Takes the lease and starts a batch over every awaiting post, oldest first. Throws
   * SyndicationInProgressError when another batch (in any process) holds the lease, and
   * SyndicationShuttingDownError during shutdown. The run then proceeds on its own.
   * `retryFailed` (the user's "retry everything that needs attention") also sends targets waiting
   * in backoff, refused permanently, or of unknown outcome.
   */
  async startBatch(trigger: Trigger, options: { retryFailed?: boolean } = {}): Promise<BatchRun> {
    const force = options.retryFailed ?? false;
    if (this.shuttingDown) throw new SyndicationShuttingDownError();
    // A scheduled run of this process yields the lease at once to a run someone asked for (issue
    // 32): it stops after the post it is on, and the asked-for run sends what it would have.
    if (trigger !== "schedule") await this.stopScheduledBatches();
    // Refusals are the common answer under contention, so they are made as cheap as possible:
    // from memory when this process runs the batch, else from one read of the lease. The
    // transaction in acquire stays the arbiter whenever the lease looks free.
    const running = this.runningHere();
    if (running) throw new SyndicationInProgressError(withoutRetry(running), running.retryAfterSeconds);
    const live = await this.parts.lease.current();
    if (live) throw new SyndicationInProgressError(withoutRetry(live), live.retryAfterSeconds);
    // The lease may be released between a failed take and the look at who holds it: try again.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const held = await this.parts.lease.acquire(this.parts.holder, trigger, (tx) =>
        this.parts.runLog.start("batch", trigger, this.parts.holder, tx),
      );
      if (held) {
        const pauses = await this.pausesFor(trigger, force);
        const batch = new Batch(
          {
            posts: this.parts.deps.posts,
            ledger: this.parts.ledger,
            runLog: this.parts.runLog,
            logger: this.parts.deps.logger,
            lease: held,
            staleMs: this.parts.staleMs,
            idempotentUids: () => this.parts.idempotentUids(),
            targetUids: () => this.parts.targetUids(),
            runner: new PostRunner(this.parts, {
              runId: held.runId,
              trigger,
              force,
              pauses,
              holdBackUntilDue: trigger === "schedule",
            }),
            emit: (event) => this.emit(event),
          },
          trigger,
        );
        this.batches.add(batch);
        const forget = () => this.batches.delete(batch);
        batch.done.then(forget, forget);
        this.parts.deps.logger.info("Syndication run started", { runId: batch.id, trigger });
        this.emit({
          type: "run-started",
          runId: batch.id,
          kind: "batch",
          trigger,
          startedAt: batch.startedAt,
        });
        return batch;
      }
      const current = await this.parts.lease.current();
      if (current) throw new SyndicationInProgressError(withoutRetry(current), current.retryAfterSeconds);
    }
    throw new Error("Could not take the syndication lease although nobody holds it; try again");
  }

  /**
   * Syndicates one post now, beside any batch (no lease: per-target claims keep every send
   * single). `retryFailed` also sends targets waiting in backoff, refused permanently, or of
   * unknown outcome (a user's retry). Throws PostNotFoundError when no live post has that URL.
   */
  async syndicatePost(
    url: string,
    trigger: Trigger,
    options: { retryFailed?: boolean } = {},
  ): Promise<PostResult> {
    return this.syndicateOne(url, trigger, options.retryFailed ?? false, false);
  }

  /**
   * Carries out the post's follow-ups that are due now (updates and deletes of its copies, issue
   * 17), beside any batch; with `retryFailed` (the user's retry) those that failed or whose outcome
   * is unknown too, or only those of `targetUids`. Deleted posts included. Throws PostNotFoundError.
   */
  async followPost(
    url: string,
    trigger: Trigger,
    options: { retryFailed?: boolean; targetUids?: readonly string[] } = {},
  ): Promise<PostResult> {
    const post = await this.parts.deps.posts.findByUrl(url);
    if (!post) throw new PostNotFoundError(url);
    const force = options.retryFailed ?? false;
    if (force) await this.parts.ledger.retryOperations(post.id, options.targetUids);
    return this.single(post, trigger, async (runId) => {
      const result = await new PostRunner(this.parts, { runId, trigger, force }).followUps(post);
      const syndication = syndicationUrls(post);
      return result ?? { url: post.url, status: "unchanged", syndication, targets: [], followUp: true };
    });
  }

  /**
   * The user's retry from the page: the post's failed or unknown targets (or only `targetUids`)
   * become due now and are sent at once. Throws PostNotFoundError.
   */
  async retry(url: string, targetUids?: readonly string[], trigger: Trigger = "manual"): Promise<PostResult> {
    const post = await this.parts.deps.posts.findByUrl(url);
    if (!post || post.deleted) throw new PostNotFoundError(url);
    await this.parts.ledger.retry(post.id, targetUids);
    return this.syndicateOne(url, trigger, false, true);
  }

  /**
   * Asks the targets (all, or those of `uids`) whether they would take a post, without sending
   * one, records what they say, and returns every target's state afterwards.
   */
  async checkTargets(uids?: readonly string[]): Promise<TargetStatus[]> {
    const chosen = this.parts.deps.syndicators().filter((s) => !uids || uids.includes(s.info.uid));
    await checkTargets(
      chosen,
      this.parts.health,
      this.parts.deps.logger,
      this.parts.targetTimeoutMs,
      this.parts.deps.notices,
    );
    return targetStatuses(this.parts.deps.syndicators(), await this.parts.health.all());
  }

  /**
   * For the embedded database, which no other process can hold: whatever the last process left
   * (sends it was making, its lease, its runs) is resolved now rather than after the lease lapses.
   * Returns how many sends were resolved.
   */
  async recoverAfterCrash(): Promise<number> {
    const resolved = await this.parts.ledger.resolveStale(0, this.parts.idempotentUids());
    await this.parts.lease.clear();
    await this.parts.runLog.abandonDead("0", 0);
    if (resolved.length > 0)
      this.parts.deps.logger.warn("Resolved sends interrupted when the server last stopped", {
        resend: resolved.filter((r) => r.state === "pending").length,
        unknown: resolved.filter((r) => r.state === "unknown").length,
      });
    return resolved.length;
  }

  /** Tells `listener` what runs in this process do. Returns the function that stops it. */
  onEvent(listener: (event: SyndicationEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  /** Resolves when every run of this process started so far has ended. */
  async idle(): Promise<void> {
    while (this.batches.size > 0 || this.singles.size > 0) {
      await Promise.allSettled([...[...this.batches].map((batch) => batch.done), ...this.singles]);
    }
  }

  /**
   * For the host's onShutdown: no new batch starts, running batches stop after their current
   * post and release the lease, and single-post runs are waited for.
   */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    for (const batch of this.batches) batch.stop();
    await this.idle();
  }

  private async syndicateOne(url: string, trigger: Trigger, force: boolean, userRetry: boolean) {
    const post = await this.parts.deps.posts.findByUrl(url);
    if (!post || post.deleted) throw new PostNotFoundError(url);
    return this.single(post, trigger, async (runId) => {
      const pauses = await this.pausesFor(trigger, force || userRetry);
      return new PostRunner(this.parts, { runId, trigger, force, pauses }).send(post);
    });
  }

  /**
   * The targets paused now (refused, rate limited: see target-pauses.ts), read from the target
   * health that every instance shares. A run someone asked for first checks the refused targets
   * that can be checked, so that a click after fixing the credentials sends at once; a user's retry
   * also sends to a refused target that cannot be checked, as its check.
   */
  private async pausesFor(trigger: Trigger, userRetry: boolean): Promise<TargetPauses> {
    // Someone asked for this run (not the scheduler, not a webhook): one check each, no post.
    if (userRetry || (trigger !== "schedule" && trigger !== "webhook")) await this.checkRefusedTargets();
    return TargetPauses.lasting(
      this.parts.deps.syndicators(),
      await this.parts.health.all(),
      this.parts.backoff,
      this.parts.clock,
      userRetry,
    );
  }

  /** Checks every refused target that can be checked (a user's retry comes after a fix). */
  private async checkRefusedTargets(): Promise<void> {
    const health = await this.parts.health.all();
    const refused = this.parts.deps
      .syndicators()
      .filter((s) => health.get(s.info.uid)?.refusedSince && typeof s.verify === "function");
    if (refused.length > 0)
      await checkTargets(
        refused,
        this.parts.health,
        this.parts.deps.logger,
        this.parts.targetTimeoutMs,
        this.parts.deps.notices,
      );
  }

  /** Runs `work` for one post as a single run, which shutdown waits for. */
  private single(post: Post, trigger: Trigger, work: (runId: string) => Promise<PostResult>) {
    const running = this.runSingle(post, trigger, work);
    this.singles.add(running);
    const forget = () => this.singles.delete(running);
    running.then(forget, forget);
    return running;
  }

  /** Stops this process's scheduled batches and waits for them to release the lease. */
  private async stopScheduledBatches(): Promise<void> {
    const scheduled = [...this.batches].filter((batch) => batch.trigger === "schedule" && !batch.finished);
    for (const batch of scheduled) batch.stop();
    await Promise.allSettled(scheduled.map((batch) => batch.done));
  }

  /** The batch this process is running, as the lease it holds describes it. */
  private runningHere(): LeaseStatus | null {
    for (const batch of this.batches) {
      if (batch.finished) continue;
      return {
        runId: batch.id,
        trigger: batch.trigger,
        holder: this.parts.holder,
        since: batch.startedAt,
        expiresAt: new Date(Date.now() + this.parts.leaseMs),
        retryAfterSeconds: Math.max(1, Math.ceil(this.parts.leaseMs / 1000)),
      };
    }
    return null;
  }

  private async runSingle(
    post: Post,
    trigger: Trigger,
    work: (runId: string) => Promise<PostResult>,
  ): Promise<PostResult> {
    const runId = await this.parts.runLog.start("single", trigger, this.parts.holder);
    const startedAt = new Date();
    this.emit({ type: "run-started", runId, kind: "single", trigger, startedAt });
    const summary = emptySummary();
    try {
      // A send of this post interrupted by a dead process is resolved first, so that it is
      // neither forgotten nor sent twice.
      await this.parts.ledger.resolveStale(this.parts.staleMs, this.parts.idempotentUids(), post.id);
      const result = await work(runId);
      countInto(summary, result);
      await this.parts.runLog.finish(runId, "finished", summary);
      this.emit({ type: "result", runId, kind: "single", result });
      this.emit({ type: "run-finished", runId, kind: "single", status: "finished", summary });
      return result;
    } catch (error) {
      await this.parts.runLog.finish(runId, "abandoned", summary).catch(() => {});
      this.emit({ type: "run-finished", runId, kind: "single", status: "abandoned", summary });
      throw error;
    }
  }

  private emit(event: SyndicationEvent): void {
    this.listeners.tell(event);
  }
}

function withoutRetry(status: LeaseStatus) {
  const { retryAfterSeconds: _, ...inProgress } = status;
  return inProgress;
}
