// A batch run: every awaiting post, oldest first, one at a time, under the lease. It goes on by
// itself whoever listens: results are broadcast as each post finishes and not kept.

import { setImmediate as nextTurn } from "node:timers/promises";
import type { Logger } from "../../contract/logger.ts";
import type { PostSource } from "../../contract/post-source.ts";
import type { AwaitingCursor, Post } from "../../contract/posts.ts";
import { visibilityOf } from "../../contract/visibility.ts";
import type { Ledger } from "../ledger/ledger.ts";
import { requestedTargets, syndicationUrls } from "../post-targets.ts";
import type { PostResult, RunSummary, SyndicationEvent, Trigger } from "../types.ts";
import { Broadcast } from "./broadcast.ts";
import type { HeldLease } from "./lease.ts";
import { countInto, emptySummary } from "./post-result.ts";
import type { PostRunner } from "./post-runner.ts";
import type { RunLog } from "./run-log.ts";
import type { KnownOfPost } from "./syndicate-post.ts";

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
  /** The time in milliseconds (Date.now; a test's clock, so that a page goes stale without a sleep). */
  now(): number;
  /** Uids of the targets that honour the idempotency key (their stale rows are sent again). */
  idempotentUids(): string[];
  /** Uids of the configured targets: a post naming none of them is not walked. */
  targetUids(): string[];
  /** Does each post's work: its follow-ups first, then its sends (a scheduled run's only when due). */
  runner: PostRunner;
  emit(event: SyndicationEvent): void;
}

// Posts are listed a page at a time, with their ledger rows and own words. A post is read again
// before it is processed when its page is older than FRESH_MS (slow targets before it), so that an
// edit made meanwhile is honoured.
const PAGE = 100;
const FRESH_MS = 1_000;

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
   * Passes over the awaiting posts, oldest first, each processing the posts this run has not
   * tried yet. A post published during a pass after the cursor is met in that pass; one that
   * arrives behind the cursor (an older `published`) is met by the next. The run ends after a
   * pass that found nothing new. Returns false when it was stopped before that.
   */
  private async walk(summary: RunSummary): Promise<boolean> {
    // Memory grows with the number of posts tried (a few dozen bytes each), not with results.
    const tried = new Set<string>();
    for (;;) {
      let processed = 0;
      let cursor: AwaitingCursor | undefined;
      for (;;) {
        // Only posts naming a configured target: one naming only removed targets does not wait.
        const page = await this.deps.posts.nextAwaitingSyndication(cursor, PAGE, this.deps.targetUids());
        const listedAt = this.deps.now();
        const known = await this.deps.runner.knownOf(page.filter((listed) => !tried.has(listed.id)));
        for (const listed of page) {
          if (tried.has(listed.id)) continue;
          if (this.shouldStop()) return false;
          tried.add(listed.id);
          const fresh = this.deps.now() - listedAt < FRESH_MS;
          const post = fresh ? listed : await this.deps.posts.findById(listed.id);
          if (!post || !isAwaiting(post)) continue;
          await this.process(post, summary, fresh ? known.get(post.id) : undefined);
          processed += 1;
          // A turn of the event loop between posts: PGlite answers on this thread through
          // microtasks, so a batch whose targets answer without I/O would otherwise hold every
          // request until its last post (bench: batch-overhead, "Event loop delay").
          await nextTurn();
        }
        // Even after a short page: posts published meanwhile after the cursor join this pass.
        const last = page.at(-1);
        if (!last) break;
        cursor = { published: last.published, id: last.id };
      }
      if (processed === 0) return true;
    }
  }

  private async process(post: Post, summary: RunSummary, known: KnownOfPost | undefined): Promise<void> {
    let result: PostResult | null;
    try {
      result = await this.deps.runner.syndicate(post, known);
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
  }

  private report(result: PostResult, summary: RunSummary): void {
    countInto(summary, result);
    this.broadcast.publish(result);
    this.deps.emit({ type: "result", runId: this.id, kind: "batch", result });
  }
}
