// The syndication core as the adapters (HTTP routes, the command line, webhooks, the admin page)
// see it. It knows nothing of HTTP: it starts runs, reports what they do, and answers questions
// about the ledger.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { z } from "zod";
import type { Database } from "../contract/database.ts";
import type { Logger } from "../contract/logger.ts";
import type { PostSource } from "../contract/post-source.ts";
import { type Post, PostNotFoundError } from "../contract/posts.ts";
import type { CopyPreview, Publication, SyndicatorPlugin } from "../contract/syndicator.ts";
import type { OutgoingFetchPolicy } from "../net/safe-fetch.ts";
import { Batch, type BatchRun } from "./batch.ts";
import { DEFAULT_TARGET_TIMEOUT_MS } from "./call-syndicator.ts";
import { type DueRules, nextDue, nextLiveCheck } from "./due.ts";
import {
  SyndicationInProgressError,
  SyndicationShuttingDownError,
  TargetNotConfirmableError,
  TargetNotSkippableError,
} from "./errors.ts";
import type { FailureNotices } from "./failure-notices.ts";
import { performFollowUps, planFollowUps } from "./follow-ups.ts";
import { idempotencyKey } from "./idempotency-key.ts";
import { DEFAULT_LEASE_MS, Lease, type LeaseStatus } from "./lease.ts";
import { type Backoff, DEFAULT_BACKOFF } from "./ledger/claims.ts";
import { Ledger } from "./ledger/ledger.ts";
import { sweepLiveChecks } from "./live-check-sweep.ts";
import { fetchLive, type LiveAnswer, type LiveCheck, LiveChecks } from "./live-checks.ts";
import { type OwnText, OwnTexts } from "./own-texts.ts";
import { PostChanges } from "./post-changes.ts";
import { findPosts, knownOrigins, type PostFilter, type PostPage } from "./post-filter.ts";
import { countInto, emptySummary } from "./post-result.ts";
import { requestedTargets, syndicationUrls } from "./post-targets.ts";
import { copiesOfPost, everyPostsCopies, type PublicCopy, type ShownTarget } from "./public-copies.ts";
import { RunLog } from "./run-log.ts";
import { holdBack, type ScheduleRules } from "./schedule-gate.ts";
import {
  type KnownOfPost,
  type PostSyndicationContext,
  type PostSyndicationRun,
  syndicatePost,
} from "./syndicate-post.ts";
import { checkTargets, type TargetStatus, targetStatuses } from "./target-checks.ts";
import { TargetHealthStore } from "./target-health.ts";
import { type TargetPause, TargetPauses } from "./target-pauses.ts";
import type {
  Attempt,
  LedgerEntry,
  OperationEntry,
  PostResult,
  RunRecord,
  SyndicationEvent,
  Trigger,
} from "./types.ts";

export type { BatchRun } from "./batch.ts";
export type { OwnText } from "./own-texts.ts";

/** One target's preview of a post: null when its syndicator cannot preview (a third-party plug-in). */
export interface TargetPreview {
  uid: string;
  name: string;
  state: LedgerEntry["state"];
  /** The copy, once sent. */
  url?: string;
  ownText?: OwnText;
  preview: CopyPreview | null;
}
export {
  SyndicationInProgressError,
  SyndicationShuttingDownError,
  TargetNotConfirmableError,
  TargetNotSkippableError,
} from "./errors.ts";
export type { LeaseStatus } from "./lease.ts";
export type { LiveCheck } from "./live-checks.ts";
export type { TargetStatus } from "./target-checks.ts";
export type { TargetPause } from "./target-pauses.ts";

export interface SyndicationOptions {
  /** How long one target may take before it counts as failed (default 30 s). */
  targetTimeoutMs?: number;
  /** How long the batch lease lasts without renewal (default 30 s); renewed every third of it. */
  leaseMs?: number;
  /** This instance's id, recorded on the lease, runs and claims (default host:pid:random). */
  holder?: string;
  /** How failed sends (and live checks) back off (the `retry` options; 2^n minutes up to a day). */
  retry?: Backoff;
  /** When a new post is due for a scheduled run (the `schedule` options). */
  schedule?: ScheduleRules;
  /** The rules for fetching a post's own URL in the live check (`fetch.allowPrivate`). */
  fetchPolicy?: OutgoingFetchPolicy;
  /** The time in milliseconds, for when pauses end and a page of posts goes stale: Date.now unless
   * given (tests move a clock instead of sleeping). */
  clock?: () => number;
}

export interface SyndicationDependencies {
  database: Database;
  posts: PostSource;
  /** Read at every post, so that targets added after start-up are used. */
  syndicators: () => readonly SyndicatorPlugin[];
  publication: Publication;
  logger: Logger;
  options?: SyndicationOptions;
  /** Whether a post's URL answers 2xx; a GET under the outgoing-fetch rules unless given (tests). */
  checkLive?: (url: string) => Promise<LiveAnswer>;
  /** Where failures that need the user are told, without their opening the page (notifications). */
  notices?: FailureNotices;
}

/** A pause longer than this is told to the user (once per streak), whatever its cause. */
const PAUSED_LONG_MS = 86_400_000;
/** How many changed posts, or posts with follow-ups due, are read at a time. */
const FOLLOW_PAGE = 100;
const durationSchema = z.number().int().positive().max(2_147_483_647);
const copyUrlSchema = z.url({ protocol: /^https?$/ });

export class Syndication {
  /** This instance, as recorded in the database. */
  readonly holder: string;
  readonly targetTimeoutMs: number;
  readonly leaseMs: number;
  readonly scheduleRules: ScheduleRules;
  private readonly ledger: Ledger;
  private readonly backoff: Backoff;
  private readonly clock: () => number;
  private readonly liveChecks: LiveChecks;
  private readonly health: TargetHealthStore;
  private readonly runLog: RunLog;
  private readonly lease: Lease;
  private readonly ownTexts: OwnTexts;
  private readonly changes: PostChanges;
  private readonly batches = new Set<Batch>();
  private readonly singles = new Set<Promise<unknown>>();
  private readonly listeners = new Set<(event: SyndicationEvent) => void>();
  private shuttingDown = false;

  constructor(private readonly deps: SyndicationDependencies) {
    const options = deps.options ?? {};
    this.targetTimeoutMs = durationSchema.parse(options.targetTimeoutMs ?? DEFAULT_TARGET_TIMEOUT_MS);
    this.leaseMs = durationSchema.parse(options.leaseMs ?? DEFAULT_LEASE_MS);
    this.holder = options.holder ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    const backoff = options.retry ?? DEFAULT_BACKOFF;
    this.backoff = backoff;
    this.clock = options.clock ?? Date.now;
    this.scheduleRules = options.schedule ?? { whenLive: true, afterPublishMs: 0 };
    this.ledger = new Ledger(deps.database, backoff);
    this.liveChecks = new LiveChecks(deps.database, backoff);
    this.health = new TargetHealthStore(deps.database);
    this.runLog = new RunLog(deps.database);
    this.lease = new Lease(deps.database, deps.logger, this.leaseMs);
    this.ownTexts = new OwnTexts(deps.database, deps.posts);
    this.changes = new PostChanges(deps.database);
  }

  /**
   * What each target of a post would receive now (issue 17): every target the post names, and those
   * it was sent to, with the user's own words where there are some. No network call is made.
   */
  async preview(post: Post): Promise<TargetPreview[]> {
    const syndicators = this.deps.syndicators();
    const [entries, texts] = await Promise.all([
      this.ledger.entriesForPost(post.id),
      this.ownTexts.forPost(post),
    ]);
    const uids = [...new Set([...requestedTargets(post), ...entries.map((entry) => entry.targetUid)])];
    return uids.map((uid): TargetPreview => {
      const syndicator = syndicators.find((s) => s.info.uid === uid);
      const own = texts.get(uid);
      const entry = entries.find((e) => e.targetUid === uid);
      const base = {
        uid,
        name: syndicator?.info.name ?? uid,
        state: entry?.state ?? "pending",
        ...(entry?.url ? { url: entry.url } : {}),
        ...(own ? { ownText: own } : {}),
      };
      if (!syndicator?.preview) return { ...base, preview: null };
      const preview = syndicator.preview(
        post.properties,
        this.deps.publication,
        own ? { text: own.text } : {},
      );
      return { ...base, preview };
    });
  }

  /** What one target would receive with `text` as the user's own words (nothing is saved). */
  previewText(post: Post, targetUid: string, text: string | undefined): CopyPreview | null {
    const syndicator = this.deps.syndicators().find((s) => s.info.uid === targetUid);
    if (!syndicator?.preview) return null;
    return syndicator.preview(post.properties, this.deps.publication, text === undefined ? {} : { text });
  }

  saveOwnText(post: Post, targetUid: string, text: string): Promise<void> {
    return this.ownTexts.save(post, targetUid, text);
  }

  resetOwnText(post: Post, targetUid: string): Promise<void> {
    return this.ownTexts.reset(post, targetUid);
  }

  ownTextsForPost(post: Post): Promise<Map<string, OwnText>> {
    return this.ownTexts.forPost(post);
  }

  /**
   * A live process sends for at most the target timeout; a `sending` row older than the lease
   * and the timeout together was left by a process that died.
   */
  private get staleMs(): number {
    return this.leaseMs + this.targetTimeoutMs;
  }

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
    const live = await this.lease.current();
    if (live) throw new SyndicationInProgressError(withoutRetry(live), live.retryAfterSeconds);
    // The lease may be released between a failed take and the look at who holds it: try again.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const held = await this.lease.acquire(this.holder, trigger, (tx) =>
        this.runLog.start("batch", trigger, this.holder, tx),
      );
      if (held) {
        const pauses = await this.pausesFor(trigger, force);
        const batch = new Batch(
          {
            posts: this.deps.posts,
            ledger: this.ledger,
            runLog: this.runLog,
            logger: this.deps.logger,
            lease: held,
            staleMs: this.staleMs,
            now: this.clock,
            idempotentUids: () => this.idempotentUids(),
            targetUids: () => this.targetUids(),
            follow: (runId, report, shouldStop) =>
              this.follow({ runId, trigger, force: false, pauses }, report, shouldStop),
            knownOf: (posts) => this.knownOf(posts),
            syndicate: (post, runId, known) =>
              trigger === "schedule"
                ? this.syndicateWhenDue(post, runId, pauses, known)
                : this.syndicateStored(post, runId, trigger, force, pauses, known),
            emit: (event) => this.emit(event),
          },
          trigger,
        );
        this.batches.add(batch);
        const forget = () => this.batches.delete(batch);
        batch.done.then(forget, forget);
        this.deps.logger.info("Syndication run started", { runId: batch.id, trigger });
        this.emit({
          type: "run-started",
          runId: batch.id,
          kind: "batch",
          trigger,
          startedAt: batch.startedAt,
        });
        return batch;
      }
      const current = await this.lease.current();
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

  private async syndicateOne(url: string, trigger: Trigger, force: boolean, userRetry: boolean) {
    const post = await this.deps.posts.findByUrl(url);
    if (!post || post.deleted) throw new PostNotFoundError(url);
    return this.single(post, trigger, async (runId) =>
      this.syndicateStored(post, runId, trigger, force, await this.pausesFor(trigger, force || userRetry)),
    );
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
      this.deps.syndicators(),
      await this.health.all(),
      this.backoff,
      this.clock,
      userRetry,
    );
  }

  /** Checks every refused target that can be checked (a user's retry comes after a fix). */
  private async checkRefusedTargets(): Promise<void> {
    const health = await this.health.all();
    const refused = this.deps
      .syndicators()
      .filter((s) => health.get(s.info.uid)?.refusedSince && typeof s.verify === "function");
    if (refused.length > 0)
      await checkTargets(refused, this.health, this.deps.logger, this.targetTimeoutMs, this.deps.notices);
  }

  /**
   * The scheduler's check of refused targets (issue 32): each whose next check is due is asked
   * (verify) and what it says recorded; a success ends its pause on every instance. Returns how
   * many were checked.
   */
  async checkPausedTargets(): Promise<number> {
    const now = this.clock();
    const syndicators = this.deps.syndicators();
    const health = await this.health.all();
    const pauses = TargetPauses.lasting(syndicators, health, this.backoff, this.clock);
    for (const syndicator of syndicators) {
      const { uid, name } = syndicator.info;
      const since = health.get(uid)?.refusedSince ?? health.get(uid)?.errorAt;
      if (pauses.get(uid, now) && since && now - since.getTime() > PAUSED_LONG_MS)
        this.deps.notices?.failure({
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
      await checkTargets(due, this.health, this.deps.logger, this.targetTimeoutMs, this.deps.notices);
    return due.length;
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
    const post = await this.deps.posts.findByUrl(url);
    if (!post) throw new PostNotFoundError(url);
    const force = options.retryFailed ?? false;
    if (force) await this.ledger.retryOperations(post.id, options.targetUids);
    return this.single(post, trigger, async (runId) => {
      const result = await performFollowUps(this.context(), post, { runId, trigger, force });
      const syndication = syndicationUrls(post);
      return result ?? { url: post.url, status: "unchanged", syndication, targets: [], followUp: true };
    });
  }

  /** Runs `work` for one post as a single run, which shutdown waits for. */
  private single(post: Post, trigger: Trigger, work: (runId: string) => Promise<PostResult>) {
    const running = this.runSingle(post, trigger, work);
    this.singles.add(running);
    const forget = () => this.singles.delete(running);
    running.then(forget, forget);
    return running;
  }

  /**
   * The user's retry from the page: the post's failed or unknown targets (or only `targetUids`)
   * become due now and are sent at once. Throws PostNotFoundError.
   */
  async retry(url: string, targetUids?: readonly string[], trigger: Trigger = "manual"): Promise<PostResult> {
    const post = await this.deps.posts.findByUrl(url);
    if (!post || post.deleted) throw new PostNotFoundError(url);
    await this.ledger.retry(post.id, targetUids);
    return this.syndicateOne(url, trigger, false, true);
  }

  /**
   * The user confirms that a target has the post at `copyUrl` (after an unknown outcome): the
   * ledger records it and the post gets the URL and stops naming the target. Throws
   * PostNotFoundError, TargetNotConfirmableError, or a ZodError when copyUrl is not http(s).
   */
  async confirm(url: string, targetUid: string, copyUrl: string): Promise<LedgerEntry> {
    const copy = copyUrlSchema.parse(copyUrl);
    const post = await this.deps.posts.findByUrl(url);
    if (!post || post.deleted) throw new PostNotFoundError(url);
    const entry = await this.ledger.markSyndicated(post.id, targetUid, copy);
    if (!entry) throw new TargetNotConfirmableError(url, targetUid);
    await this.deps.posts.update(url, {
      add: { syndication: [copy] },
      delete: { "mp-syndicate-to": [targetUid] },
    });
    await this.ledger.markWrittenBack(post.id, [targetUid]);
    return { ...entry, writtenBack: true };
  }

  /** Every configured target with what is known of it: well, refused, rate limited, failing. */
  async targets(): Promise<TargetStatus[]> {
    return targetStatuses(this.deps.syndicators(), await this.health.all());
  }

  /**
   * Asks the targets (all, or those of `uids`) whether they would take a post, without sending
   * one, records what they say, and returns every target's state afterwards.
   */
  async checkTargets(uids?: readonly string[]): Promise<TargetStatus[]> {
    const chosen = this.deps.syndicators().filter((s) => !uids || uids.includes(s.info.uid));
    await checkTargets(chosen, this.health, this.deps.logger, this.targetTimeoutMs, this.deps.notices);
    return this.targets();
  }

  /**
   * The user chose not to send the post to `targetUid` ("Skip for this post"), after a failure or
   * when the target is no longer configured: the ledger says so and the post stops naming it.
   * Throws PostNotFoundError, or TargetNotSkippableError when the post neither names the target
   * nor has a record of it, or the target has the post or is being sent it right now.
   */
  async skip(url: string, targetUid: string): Promise<LedgerEntry> {
    const post = await this.deps.posts.findByUrl(url);
    if (!post || post.deleted) throw new PostNotFoundError(url);
    const known = (await this.ledger.entriesForPost(post.id)).some((entry) => entry.targetUid === targetUid);
    if (!known && !requestedTargets(post).includes(targetUid))
      throw new TargetNotSkippableError(url, targetUid);
    const entry = await this.ledger.markSkipped(post.id, targetUid, idempotencyKey(post.url, targetUid));
    if (!entry) throw new TargetNotSkippableError(url, targetUid);
    if (requestedTargets(post).includes(targetUid))
      await this.deps.posts.update(url, { delete: { "mp-syndicate-to": [targetUid] } });
    return entry;
  }

  /** The post's follow-ups (updates and deletes of its copies), in the order they were asked for. */
  operationsForPost(postId: string): Promise<OperationEntry[]> {
    return this.ledger.operationsForPost(postId);
  }

  /** The batch in progress in any process sharing the database, or null. */
  async inProgress(): Promise<LeaseStatus | null> {
    return this.lease.current();
  }

  /** The ledger rows of one post (one per target it was ever sent to). */
  entriesForPost(postId: string): Promise<LedgerEntry[]> {
    return this.ledger.entriesForPost(postId);
  }

  /** The rows of many posts in one query, keyed by post id (posts without rows are absent). */
  summaryForPosts(postIds: readonly string[]): Promise<Map<string, LedgerEntry[]>> {
    return this.ledger.summaryForPosts(postIds);
  }

  /** The latest attempts for one post, newest first. */
  attemptsForPost(postId: string, limit = 20): Promise<Attempt[]> {
    return this.ledger.attemptsForPost(postId, limit);
  }

  /**
   * How many posts need attention. `needingUser`: a target refused for good or of unknown outcome,
   * or a new post whose page was not live after a day (the navigation badge, /health). `all`: those
   * and the posts whose target waits for its backoff, what a retry of everything would send again.
   */
  async postsNeedingAttention(): Promise<{ needingUser: number; all: number }> {
    const [ledger, notLive] = await Promise.all([
      this.ledger.attentionCounts(this.targetUids()),
      this.liveChecks.countGaveUp(),
    ]);
    return { needingUser: ledger.needingUser + notLive, all: ledger.failedOrUnknown + notLive };
  }

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
      nextDue(this.deps.database, rules),
      nextLiveCheck(this.deps.database, rules),
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
    if (!this.scheduleRules.whenLive) return 0;
    const { rules } = await this.dueRules();
    return sweepLiveChecks({
      database: this.deps.database,
      liveChecks: this.liveChecks,
      checkLive: (url) => this.checkLive(url),
      rules,
    });
  }

  private async dueRules(): Promise<{ rules: DueRules; pauses: TargetPauses }> {
    const pauses = TargetPauses.lasting(
      this.deps.syndicators(),
      await this.health.all(),
      this.backoff,
      this.clock,
    );
    const paused = new Set(pauses.uids());
    const rules: DueRules = {
      staleMs: this.staleMs,
      afterPublishMs: this.scheduleRules.afterPublishMs,
      whenLive: this.scheduleRules.whenLive,
      targetUids: this.targetUids().filter((uid) => !paused.has(uid)),
    };
    return { rules, pauses };
  }

  private checkLive(url: string): Promise<LiveAnswer> {
    return this.deps.checkLive
      ? this.deps.checkLive(url)
      : fetchLive(url, this.deps.options?.fetchPolicy ?? { ownSite: this.deps.publication.me });
  }

  /** Stops this process's scheduled batches and waits for them to release the lease. */
  private async stopScheduledBatches(): Promise<void> {
    const scheduled = [...this.batches].filter((batch) => batch.trigger === "schedule" && !batch.finished);
    for (const batch of scheduled) batch.stop();
    await Promise.allSettled(scheduled.map((batch) => batch.done));
  }

  /** The targets paused now, by uid, with what the page says of each. */
  async pausedTargets(): Promise<Map<string, TargetPause>> {
    const pauses = TargetPauses.lasting(
      this.deps.syndicators(),
      await this.health.all(),
      this.backoff,
      this.clock,
    );
    return new Map(pauses.entries());
  }

  /** The ids of one page of posts matching the page's filter, oldest first, and how many match. */
  findPosts(
    filter: Omit<PostFilter, "configuredUids">,
    page: { offset: number; limit: number },
  ): Promise<PostPage> {
    const configuredUids = this.deps.syndicators().map((syndicator) => syndicator.info.uid);
    return findPosts(this.deps.database, { ...filter, configuredUids }, page);
  }

  /**
   * The copies of one post a visitor may know of (public-copies.ts), or null when no post a visitor
   * may see is at `url`. Copies on a target no longer configured, or whose copies only some people
   * see (`info.publicCopies: false`), are left out.
   */
  publicCopiesOf(url: string): Promise<{ url: string; copies: PublicCopy[] } | null> {
    return copiesOfPost(this.deps.database, url, this.publicTargets());
  }

  /** Every post's copies a visitor may know of, keyed by the post's URL, newest post first. */
  everyPostsPublicCopies(): Promise<Map<string, PublicCopy[]>> {
    return everyPostsCopies(this.deps.database, this.publicTargets());
  }

  private publicTargets(): ShownTarget[] {
    return this.deps
      .syndicators()
      .filter((syndicator) => syndicator.info.publicCopies !== false)
      .map(({ info }) => ({ uid: info.uid, name: info.name }));
  }

  /** The origins of the posts from elsewhere (`feed:blog`, `micropub:blog`), for the page's filter. */
  postOrigins(): Promise<string[]> {
    return knownOrigins(this.deps.database);
  }

  /** The live checks of new posts (schedule.whenLive), keyed by post id, for the page. */
  liveChecksForPosts(postIds: readonly string[]): Promise<Map<string, LiveCheck>> {
    return this.liveChecks.forPosts(postIds);
  }

  /**
   * For the embedded database, which no other process can hold: whatever the last process left
   * (sends it was making, its lease, its runs) is resolved now rather than after the lease lapses.
   * Returns how many sends were resolved.
   */
  async recoverAfterCrash(): Promise<number> {
    const resolved = await this.ledger.resolveStale(0, this.idempotentUids());
    await this.lease.clear();
    await this.runLog.abandonDead("0", 0);
    if (resolved.length > 0)
      this.deps.logger.warn("Resolved sends interrupted when the server last stopped", {
        resend: resolved.filter((r) => r.state === "pending").length,
        unknown: resolved.filter((r) => r.state === "unknown").length,
      });
    return resolved.length;
  }

  /** The latest runs, batch and single, newest first. */
  recentRuns(limit = 20): Promise<RunRecord[]> {
    return this.runLog.recent(limit);
  }

  /** Tells `listener` what runs in this process do. Returns the function that stops it. */
  onEvent(listener: (event: SyndicationEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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

  /** The batch this process is running, as the lease it holds describes it. */
  private runningHere(): LeaseStatus | null {
    for (const batch of this.batches) {
      if (batch.finished) continue;
      return {
        runId: batch.id,
        trigger: batch.trigger,
        holder: this.holder,
        since: batch.startedAt,
        expiresAt: new Date(Date.now() + this.leaseMs),
        retryAfterSeconds: Math.max(1, Math.ceil(this.leaseMs / 1000)),
      };
    }
    return null;
  }

  /** The configured targets' uids. */
  targetUids(): string[] {
    return this.deps.syndicators().map((syndicator) => syndicator.info.uid);
  }

  private idempotentUids(): string[] {
    return this.deps
      .syndicators()
      .filter((syndicator) => syndicator.honoursIdempotencyKey === true)
      .map((syndicator) => syndicator.info.uid);
  }

  private context(): PostSyndicationContext {
    return {
      ledger: this.ledger,
      posts: this.deps.posts,
      syndicators: this.deps.syndicators(),
      publication: this.deps.publication,
      logger: this.deps.logger,
      holder: this.holder,
      targetTimeoutMs: this.targetTimeoutMs,
      health: this.health,
      ownTexts: this.ownTexts,
      ...(this.deps.notices ? { notices: this.deps.notices } : {}),
    };
  }

  private syndicateStored(
    post: Post,
    runId: string,
    trigger: Trigger,
    force: boolean,
    pauses?: TargetPauses,
    known?: KnownOfPost,
  ): Promise<PostResult> {
    return syndicatePost(
      this.context(),
      post,
      { runId, trigger, force, ...(pauses ? { pauses } : {}) },
      known,
    );
  }

  /** The ledger rows and own words of a page of posts, in two reads (a batch's walk). */
  private async knownOf(posts: readonly Post[]): Promise<Map<string, KnownOfPost>> {
    const ids = posts.map((post) => post.id);
    const [entries, ownTexts] = await Promise.all([
      this.ledger.summaryForPosts(ids),
      this.ownTexts.forPosts(posts),
    ]);
    return new Map(
      ids.map((id) => [id, { entries: entries.get(id) ?? [], ownTexts: ownTexts.get(id) ?? new Map() }]),
    );
  }

  /**
   * A scheduled run's post: held back while it is not due yet (see schedule-gate.ts), and then not
   * reported at all: waiting is not a result, nor something for the user to attend to (issue 32).
   */
  private async syndicateWhenDue(
    post: Post,
    runId: string,
    pauses: TargetPauses,
    known?: KnownOfPost,
  ): Promise<PostResult | null> {
    const names = new Map(this.deps.syndicators().map((s) => [s.info.uid, s.info.name]));
    const held = await holdBack(
      {
        ledger: this.ledger,
        liveChecks: this.liveChecks,
        checkLive: (url) => this.checkLive(url),
        rules: this.scheduleRules,
        nameOf: (uid) => names.get(uid) ?? uid,
      },
      post,
      known?.entries,
    );
    return held ? null : this.syndicateStored(post, runId, "schedule", false, pauses, known);
  }

  /**
   * Follows the changed posts (issue 17): first works out what each changed post's copies need,
   * then carries out every follow-up that is due. False when stopped before the end.
   */
  private async follow(
    run: PostSyndicationRun,
    report: (result: PostResult) => void,
    shouldStop: () => boolean,
  ): Promise<boolean> {
    const context = this.context();
    const planned = new Set<string>();
    for (;;) {
      const changes = (await this.changes.noticed(FOLLOW_PAGE)).filter(
        (change) => !planned.has(`${change.postId}@${change.noticedAt}`),
      );
      if (changes.length === 0) break;
      for (const change of changes) {
        if (shouldStop()) return false;
        planned.add(`${change.postId}@${change.noticedAt}`);
        try {
          const post = await this.deps.posts.findById(change.postId);
          if (post) await planFollowUps(context, post);
          await this.changes.followed(change);
        } catch (error) {
          // Kept for the next run; one post that cannot be planned must not hold up the others,
          // nor the sends that follow.
          this.deps.logger.error("Working out what a changed post's copies need failed", {
            postId: change.postId,
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
    }
    const tried = new Set<string>();
    for (;;) {
      const postIds = (await this.ledger.postsWithDueOperations(FOLLOW_PAGE)).filter((id) => !tried.has(id));
      if (postIds.length === 0) return true;
      for (const postId of postIds) {
        if (shouldStop()) return false;
        tried.add(postId);
        const post = await this.deps.posts.findById(postId);
        if (!post) continue;
        try {
          const result = await performFollowUps(context, post, run);
          if (result) report(result);
        } catch (error) {
          this.deps.logger.error("Following a post's change failed inside the server", {
            post: post.url,
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
    }
  }

  private async runSingle(
    post: Post,
    trigger: Trigger,
    work: (runId: string) => Promise<PostResult>,
  ): Promise<PostResult> {
    const runId = await this.runLog.start("single", trigger, this.holder);
    const startedAt = new Date();
    this.emit({ type: "run-started", runId, kind: "single", trigger, startedAt });
    const summary = emptySummary();
    try {
      // A send of this post interrupted by a dead process is resolved first, so that it is
      // neither forgotten nor sent twice.
      await this.ledger.resolveStale(this.staleMs, this.idempotentUids(), post.id);
      const result = await work(runId);
      countInto(summary, result);
      await this.runLog.finish(runId, "finished", summary);
      this.emit({ type: "result", runId, kind: "single", result });
      this.emit({ type: "run-finished", runId, kind: "single", status: "finished", summary });
      return result;
    } catch (error) {
      await this.runLog.finish(runId, "abandoned", summary).catch(() => {});
      this.emit({ type: "run-finished", runId, kind: "single", status: "abandoned", summary });
      throw error;
    }
  }

  private emit(event: SyndicationEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A listener's fault (a closed page stream) must not disturb a run.
        this.deps.logger.warn("A syndication event listener failed", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
}

function withoutRetry(status: LeaseStatus) {
  const { retryAfterSeconds: _, ...inProgress } = status;
  return inProgress;
}
