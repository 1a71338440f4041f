import type { LiveCheck } from "../due/live-checks.ts";
import type { SyndicationParts } from "../parts.ts";
import type { LeaseStatus } from "../runs/lease.ts";
import { type TargetStatus, targetStatuses } from "../runs/target-checks.ts";
import { type TargetPause, TargetPauses } from "../runs/target-pauses.ts";
import type { Attempt, LedgerEntry, OperationEntry, RunRecord } from "../types.ts";
import { findPosts, knownOrigins, type PostFilter, type PostPage } from "./post-filter.ts";
import { copiesOfPost, everyPostsCopies, type PublicCopy, type ShownTarget } from "./public-copies.ts";

export class PageReads {
  constructor(private readonly parts: SyndicationParts) {}

  /**
   * The core's time (a test's clock, when it was given one): what the page counts "ago" and "in"
   * from, so that they agree with the times the core records.
   */
  now(): Date {
    return new Date(this.parts.clock());
  }

  /** The configured targets' uids. */
  targetUids(): string[] {
    return this.parts.deps.syndicators().map((syndicator) => syndicator.info.uid);
  }

  /** The batch in progress in any process sharing the database, or null. */
  async inProgress(): Promise<LeaseStatus | null> {
    return this.parts.lease.current();
  }

  /** Every configured target with what is known of it: well, refused, rate limited, failing. */
  async targets(): Promise<TargetStatus[]> {
    return targetStatuses(this.parts.deps.syndicators(), await this.parts.health.all());
  }

  /** The targets paused now, by uid, with what the page says of each. */
  async pausedTargets(): Promise<Map<string, TargetPause>> {
    const pauses = TargetPauses.lasting(
      this.parts.deps.syndicators(),
      await this.parts.health.all(),
      this.parts.backoff,
      this.parts.clock,
    );
    return new Map(pauses.entries());
  }

  /**
   * How many posts need attention. `needingUser`: a target refused for good or of unknown outcome,
   * or a new post whose page was not live after a day (the navigation badge, /health). `all`: those
   * and the posts whose target waits for its backoff, what a retry of everything would send again.
   */
  async postsNeedingAttention(): Promise<{ needingUser: number; all: number }> {
    const [ledger, notLive] = await Promise.all([
      this.parts.ledger.attentionCounts(this.parts.targetUids()),
      this.parts.liveChecks.countGaveUp(),
    ]);
    return { needingUser: ledger.needingUser + notLive, all: ledger.failedOrUnknown + notLive };
  }

  /** The ids of one page of posts matching the page's filter, oldest first, and how many match. */
  findPosts(
    filter: Omit<PostFilter, "configuredUids">,
    page: { offset: number; limit: number },
  ): Promise<PostPage> {
    const configuredUids = this.parts.deps.syndicators().map((syndicator) => syndicator.info.uid);
    return findPosts(this.parts.deps.database, { ...filter, configuredUids }, page);
  }

  /** The ledger rows of one post (one per target it was ever sent to). */
  entriesForPost(postId: string): Promise<LedgerEntry[]> {
    return this.parts.ledger.entriesForPost(postId);
  }

  /** The rows of many posts in one query, keyed by post id (posts without rows are absent). */
  summaryForPosts(postIds: readonly string[]): Promise<Map<string, LedgerEntry[]>> {
    return this.parts.ledger.summaryForPosts(postIds);
  }

  /** The latest attempts for one post, newest first. */
  attemptsForPost(postId: string, limit = 20): Promise<Attempt[]> {
    return this.parts.ledger.attemptsForPost(postId, limit);
  }

  /** The post's follow-ups (updates and deletes of its copies), in the order they were asked for. */
  operationsForPost(postId: string): Promise<OperationEntry[]> {
    return this.parts.ledger.operationsForPost(postId);
  }

  /** The live checks of new posts (schedule.whenLive), keyed by post id, for the page. */
  liveChecksForPosts(postIds: readonly string[]): Promise<Map<string, LiveCheck>> {
    return this.parts.liveChecks.forPosts(postIds);
  }

  /** The origins of the posts from elsewhere (`feed:blog`, `micropub:blog`), for the page's filter. */
  postOrigins(): Promise<string[]> {
    return knownOrigins(this.parts.deps.database);
  }

  /**
   * The copies of one post a visitor may know of (public-copies.ts), or null when no post a visitor
   * may see is at `url`. Copies on a target no longer configured, or whose copies only some people
   * see (`info.publicCopies: false`), are left out.
   */
  publicCopiesOf(url: string): Promise<{ url: string; copies: PublicCopy[] } | null> {
    return copiesOfPost(this.parts.deps.database, url, this.publicTargets());
  }

  /** Every post's copies a visitor may know of, keyed by the post's URL, newest post first. */
  everyPostsPublicCopies(): Promise<Map<string, PublicCopy[]>> {
    return everyPostsCopies(this.parts.deps.database, this.publicTargets());
  }

  private publicTargets(): ShownTarget[] {
    return this.parts.deps
      .syndicators()
      .filter((syndicator) => syndicator.info.publicCopies !== false)
      .map(({ info }) => ({ uid: info.uid, name: info.name }));
  }

  /** The latest runs, batch and single, newest first. */
  recentRuns(limit = 20): Promise<RunRecord[]> {
    return this.parts.runLog.recent(limit);
  }
}
