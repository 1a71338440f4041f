// What the three faces of the core (runs, page reads, copy editing) share: the stores over the
// core's own tables, the options resolved once, and the answers each of them needs (the configured
// targets, which of them are paused). Built once per Syndication, so that every face sees the same
// instance (holder, clock, backoff).
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { z } from "zod";
import type { Database } from "../contract/database.ts";
import type { Logger } from "../contract/logger.ts";
import type { SyndicatorPlugin } from "../contract/plugin.ts";
import type { PostSource } from "../contract/post-source.ts";
import type { Publication } from "../contract/syndicator.ts";
import type { OutgoingFetchPolicy } from "../net/safe-fetch.ts";
import { OwnTexts } from "./copies/own-texts.ts";
import { ThreadChoices } from "./copies/thread-choices.ts";
import { type DatabaseNow, databaseNow } from "./database-now.ts";
import { fetchLive, type LiveAnswer, LiveChecks } from "./due/live-checks.ts";
import { PostChanges } from "./due/post-changes.ts";
import type { ScheduleRules } from "./due/schedule-gate.ts";
import { type Backoff, DEFAULT_BACKOFF } from "./ledger/claims.ts";
import { Ledger } from "./ledger/ledger.ts";
import { DEFAULT_TARGET_TIMEOUT_MS } from "./runs/call-syndicator.ts";
import type { FailureNotices } from "./runs/failure-notices.ts";
import { DEFAULT_LEASE_MS, type Every, Lease } from "./runs/lease.ts";
import { RunLog } from "./runs/run-log.ts";
import { TargetHealthStore } from "./runs/target-health.ts";
import { TargetPauses } from "./runs/target-pauses.ts";

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
   * given. Where the database decides time (a backoff's end, a stale claim, a page giving up, the
   * lease), its now() unless given: then the SQL takes the clock's time as a parameter instead
   * (database-now.ts), so that tests move a clock instead of waiting. */
  clock?: () => number;
  /** How the lease's renewals are timed: a real interval unless given (a test clock fires them as
   * it moves). */
  every?: Every;
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

const durationSchema = z.number().int().positive().max(2_147_483_647);

export class SyndicationParts {
  /** This instance, as recorded in the database. */
  readonly holder: string;
  readonly targetTimeoutMs: number;
  readonly leaseMs: number;
  readonly scheduleRules: ScheduleRules;
  readonly backoff: Backoff;
  readonly clock: () => number;
  /** "Now" in the core's SQL (the database's, unless a clock was given). */
  readonly databaseNow: DatabaseNow;
  readonly ledger: Ledger;
  readonly liveChecks: LiveChecks;
  readonly health: TargetHealthStore;
  readonly runLog: RunLog;
  readonly lease: Lease;
  readonly ownTexts: OwnTexts;
  readonly threadChoices: ThreadChoices;
  readonly changes: PostChanges;

  constructor(readonly deps: SyndicationDependencies) {
    const options = deps.options ?? {};
    this.targetTimeoutMs = durationSchema.parse(options.targetTimeoutMs ?? DEFAULT_TARGET_TIMEOUT_MS);
    this.leaseMs = durationSchema.parse(options.leaseMs ?? DEFAULT_LEASE_MS);
    this.holder = options.holder ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.backoff = options.retry ?? DEFAULT_BACKOFF;
    this.clock = options.clock ?? Date.now;
    this.scheduleRules = options.schedule ?? { whenLive: true, afterPublishMs: 0 };
    this.databaseNow = databaseNow(options.clock);
    this.ledger = new Ledger(deps.database, this.backoff, this.databaseNow);
    this.liveChecks = new LiveChecks(deps.database, this.backoff, this.databaseNow);
    this.health = new TargetHealthStore(deps.database, this.databaseNow);
    this.runLog = new RunLog(deps.database, this.databaseNow);
    this.lease = new Lease(deps.database, deps.logger, this.leaseMs, undefined, {
      clock: options.clock,
      every: options.every,
    });
    this.ownTexts = new OwnTexts(deps.database, deps.posts);
    this.threadChoices = new ThreadChoices(deps.database);
    this.changes = new PostChanges(deps.database);
  }

  /**
   * A live process sends for at most the target timeout; a `sending` row older than the lease
   * and the timeout together was left by a process that died.
   */
  get staleMs(): number {
    return this.leaseMs + this.targetTimeoutMs;
  }

  /** The configured targets' uids. */
  targetUids(): string[] {
    return this.deps.syndicators().map((syndicator) => syndicator.info.uid);
  }

  /** The targets that promise to honour an idempotency key (a stale send of theirs is resent). */
  idempotentUids(): string[] {
    return this.deps
      .syndicators()
      .filter((syndicator) => syndicator.honoursIdempotencyKey === true)
      .map((syndicator) => syndicator.info.uid);
  }

  /** Whether a post's URL answers 2xx (the live check of a new post). */
  checkLive(url: string): Promise<LiveAnswer> {
    return this.deps.checkLive
      ? this.deps.checkLive(url)
      : fetchLive(url, this.deps.options?.fetchPolicy ?? { ownSite: this.deps.publication.me });
  }

  /**
   * The targets paused now (refused, rate limited: see target-pauses.ts), from the target health
   * every instance shares. `userRetry`: a user's retry also sends to a refused target that cannot
   * be checked, as its check.
   */
  async pauses(userRetry = false): Promise<TargetPauses> {
    return TargetPauses.lasting(
      this.deps.syndicators(),
      await this.health.all(),
      this.backoff,
      this.clock,
      userRetry,
    );
  }
}
