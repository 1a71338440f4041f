// A batch run: every awaiting post, oldest first, one at a time, under the lease. It goes on by
// itself whoever listens: results are broadcast as each post finishes and not kept.

import type { Logger } from "../../contract/logger.ts";
import type { PostSource } from "../../contract/post-source.ts";
import type { Post } from "../../contract/posts.ts";
import { visibilityOf } from "../../contract/visibility.ts";
import type { Ledger } from "../ledger/ledger.ts";
import { requestedTargets, syndicationUrls } from "../post-targets.ts";
import type { PostResult, RunSummary, SyndicationEvent, Trigger } from "../types.ts";
import { AwaitingPosts, type Listed } from "./awaiting-posts.ts";
import { Broadcast } from "./broadcast.ts";
import type { HeldLease } from "./lease.ts";
import { countInto, emptySummary } from "./post-result.ts";
import type { PostRunner } from "./post-runner.ts";
import type { RunLog } from "./run-log.ts";
import type { ClaimedNext, NextPost } from "./syndicate-post.ts";

/** What the starter of a batch gets back. */
export interface BatchRun {
  id: string;
  trigger: Trigger;
  startedAt: Date;
  /**
   * Each iteration receives the results of the posts finished after it began, in the order they
   * are processed, and ends with the run. Iterate right after startBatch resolves (before any
   * other await) to receive every result. Breaking out does not stop the run.
   */
  results: AsyncIterable<PostResult>;
  /** Resolves with the counts once the run has ended and released the lease. */
  done: Promise<RunSummary>;
}

export interface BatchDependencies {
  posts: PostSource;
  ledger: Ledger;
  runLog: RunLog;
  logger: Logger;
  lease: HeldLease;
  /** `sending` rows older than this were left by a process that died mid-send. */
  staleMs: number;
  /** Uids of the targets that honour the idempotency key (their stale rows are sent again). */
  idempotentUids(): string[];
  /** Uids of the configured targets: a post naming none of them is not walked. */
  targetUids(): string[];
  /** Does each post's work: its follow-ups first, then its sends (a scheduled run's only when due). */
  runner: PostRunner;
  emit(event: SyndicationEvent): void;
}

// A post is read again when its claim finds it changed since its page was listed (decision 0080): it
// is sent as it is now only while it still awaits syndication.
function isAwaiting(post: Post): boolean {
  return (
    post.status === "published" &&
    !post.deleted &&
    visibilityOf(post.properties) === "public" &&
    requestedTargets(post).length > 0
  );
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class Batch implements BatchRun {
  readonly id: string;
  readonly startedAt = new Date();
  readonly results: AsyncIterable<PostResult>;
  readonly done: Promise<RunSummary>;
  private readonly broadcast = new Broadcast<PostResult>();
  private stopRequested = false;
  /** True once the run has ended and released its lease. */
  finished = false;

  constructor(
    private readonly deps: BatchDependencies,
    readonly trigger: Trigger,
  ) {
    this.id = deps.lease.runId;
    this.results = this.broadcast;
    // Started on the next turn of the event loop, so that whoever started the batch has
    // subscribed to the results before the first one can arrive.
    this.done = new Promise<RunSummary>((resolve, reject) => {
      setImmediate(() => {
        this.run().then(resolve, reject);
      });
    });
    // Nobody is obliged to await `done`; a failed run is logged, not an unhandled rejection.
    this.done.catch(() => {});
  }

  /** Asks the run to stop after the post it is on (shutdown). */
  stop(): void {
    this.stopRequested = true;
  }

  private shouldStop(): boolean {
    return this.stopRequested || this.deps.lease.lost;
  }

  private async run(): Promise<RunSummary> {
    const { deps } = this;
    deps.lease.keepAlive(() => deps.emit({ type: "lease-lost", runId: this.id }));
    const summary = emptySummary();
    let completed = false;
    let failure: unknown;
    try {
      await deps.runLog.abandonDead(this.id, deps.staleMs);
      const resolved = await deps.ledger.resolveStale(deps.staleMs, deps.idempotentUids());
      if (resolved.length > 0)
        deps.logger.warn("Resolved sends interrupted by a process that died", {
          resend: resolved.filter((r) => r.state === "pending").length,
          unknown: resolved.filter((r) => r.state === "unknown").length,
        });
      // The run's write-backs reach the site's store as one change when it ends (decision 0033).
      const work = async () =>
        (await deps.runner.followChangedPosts(
          (result) => this.report(result, summary),
          () => this.shouldStop(),
        )) && (await this.walk(summary));
      completed = await (deps.posts.writeTogether ? deps.posts.writeTogether(work) : work());
    } catch (error) {
      failure = error;
      deps.logger.error("The syndication run stopped on an error", {
        runId: this.id,
        error: describe(error),
      });
    }
    const status = completed ? "finished" : "abandoned";
    if (!completed && failure === undefined)
      deps.logger.warn("The syndication run stopped before its end", {
        runId: this.id,
        reason: deps.lease.lost ? "lease lost" : "shutdown",
      });
    await deps.runLog.finish(this.id, status, summary).catch((error: unknown) => {
      deps.logger.error("Could not record the end of the syndication run", { error: describe(error) });
    });
    await deps.lease.release().catch((error: unknown) => {
      // It lapses by itself.
      deps.logger.warn("Could not release the syndication lease", { error: describe(error) });
    });
    this.finished = true;
    deps.emit({ type: "run-finished", runId: this.id, kind: "batch", status, summary });
    this.broadcast.end(failure);
    if (failure !== undefined) throw failure;
    return summary;
  }

  /**
   * Sends the awaiting posts one after another (AwaitingPosts: oldest first, in passes until one
   * finds nothing new). The next post is prepared once the current post's targets have answered,
   * and only when its claim may ride the current post's write-back (decision 0075); else it is
   * taken at its turn. Returns false when it was stopped before the end.
   */
  private async walk(summary: RunSummary): Promise<boolean> {
    const { posts, runner } = this.deps;
    const awaiting = new AwaitingPosts({
      // Only posts naming a configured target: one naming only removed targets does not wait.
      list: (cursor, limit) => posts.nextAwaitingSyndication(cursor, limit, this.deps.targetUids()),
      knownOf: (listed) => runner.knownOf(listed),
    });
    /** What the current post's write-back claimed of the next post. */
    let claimed: ClaimedNext | undefined;
    for (;;) {
      // A post whose claim rode the last write-back is sent whatever happens meanwhile: its rows
      // are `sending` under this run. Any other is not begun once the run is asked to stop.
      if (!claimed && this.shouldStop()) return false;
      const current = await awaiting.take();
      if (!current) return true;
      claimed = await this.process({ ...current, claimed }, summary, async () => {
        const following = await awaiting.peek();
        if (!following || this.shouldStop()) return undefined;
        return runner.prepareNext(following.post, following.known);
      });
    }
  }

  /**
   * Sends one post and reports its result. Returns what its write-back claimed of the next post,
   * when that claim rode it (decision 0075). A post that changed since its page was read is read
   * again and sent as it is now, unless it no longer awaits syndication or the run is stopping
   * (decision 0080).
   */
  private async process(
    { post, known, claimed }: Listed & { claimed: ClaimedNext | undefined },
    summary: RunSummary,
    next: NextPost,
  ): Promise<ClaimedNext | undefined> {
    const { runner, posts } = this.deps;
    let result: PostResult | null = null;
    let claimedNext: ClaimedNext | undefined;
    try {
      let done = await runner.syndicateBefore(post, known, next, claimed);
      if ("changed" in done) {
        const again = this.shouldStop() ? null : await posts.findById(post.id);
        // Read just now: its claim compares nothing but its deletion, and is never "changed".
        done =
          again && isAwaiting(again)
            ? await runner.syndicateBefore(again, undefined, next)
            : // Stryker disable next-line ObjectLiteral: {} leaves result null and no next post, as { result: null } does.
              { result: null };
      }
      // Stryker disable next-line ConditionalExpression: a "changed" answer has neither result nor next, so reading them leaves both as they were; the test narrows the type.
      if ("result" in done) {
        result = done.result;
        claimedNext = done.next;
      }
    } catch (error) {
      this.deps.logger.error("Syndicating a post failed inside the server", {
        post: post.url,
        error: describe(error),
      });
      result = {
        url: post.url,
        status: "failed",
        syndication: syndicationUrls(post),
        targets: requestedTargets(post).map((uid) => ({
          uid,
          name: uid,
          status: "failed" as const,
          error: `Internal error: ${describe(error)}`,
        })),
      };
    }
    if (result) this.report(result, summary);
    return claimedNext;
  }

  private report(result: PostResult, summary: RunSummary): void {
    countInto(summary, result);
    this.broadcast.publish(result);
    this.deps.emit({ type: "result", runId: this.id, kind: "batch", result });
  }
}
