// The per-post work of a run, in one object: what a batch does for each post it walks, what a
// single-post request does for its post, and what following changed posts does for each of them.
// Runs makes one per run; the batch and the single-post run then only decide which posts to hand it.

import type { Post } from "../../contract/posts.ts";
import { holdBack } from "../due/schedule-gate.ts";
import { mayHaveChanged } from "../ledger/as-listed.ts";
import type { SyndicationParts } from "../parts.ts";
import type { PostResult } from "../types.ts";
import { performFollowUps, planFollowUps } from "./follow-ups.ts";
import {
  type ClaimedNext,
  type KnownOfPost,
  type NextPost,
  type PostSyndicationContext,
  type PostSyndicationRun,
  type PreparedPost,
  preparePost,
  sendPrepared,
  syndicatePost,
} from "./syndicate-post.ts";

/** What a batch's post came to: sent (or held back: null), or found changed since its page was read. */
export type SentBefore = { result: PostResult | null; next?: ClaimedNext } | { changed: true };

const CHANGED = { changed: true } as const;

/** How many changed posts, or posts with follow-ups due, are read at a time. */
const FOLLOW_PAGE = 100;

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface PostRunnerRun extends PostSyndicationRun {
  /**
   * A scheduled run: a new post is held back while it is not due yet (schedule-gate.ts), and then
   * not reported at all; waiting is not a result, nor something for the user to attend to
   * (decision 0049).
   */
  holdBackUntilDue?: boolean;
}

/**
 * Sends posts, and carries out their follow-ups, for one run: its id, trigger, whether it is a
 * user's retry (`force`) and the targets it found paused, shared by every post it hands over.
 *
 * @example
 * const runner = new PostRunner(parts, { runId, trigger: "manual", force: false, pauses });
 * const done = await runner.syndicateBefore(post, known, next); // claimed, sent, recorded, written back
 * const followed = await runner.followUps(post); // its copies' updates and deletes that are due
 */
export class PostRunner {
  constructor(
    private readonly parts: SyndicationParts,
    readonly run: PostRunnerRun,
  ) {}

  /**
   * What syndicate-post.ts and follow-ups.ts need of the core, made for each post: the configured
   * targets are read again, so that a target added while a batch runs is used by its next post.
   */
  get context(): PostSyndicationContext {
    const { parts } = this;
    return {
      ledger: parts.ledger,
      posts: parts.deps.posts,
      syndicators: parts.deps.syndicators(),
      publication: parts.deps.publication,
      logger: parts.deps.logger,
      holder: parts.holder,
      targetTimeoutMs: parts.targetTimeoutMs,
      health: parts.health,
      ownTexts: parts.ownTexts,
      threadChoices: parts.threadChoices,
      ...(parts.deps.notices ? { notices: parts.deps.notices } : {}),
      now: parts.clock,
    };
  }

  /** The ledger rows, own words and thread choices of a page of posts, read side by side (a batch's walk). */
  async knownOf(posts: readonly Post[]): Promise<Map<string, KnownOfPost>> {
    const ids = posts.map((post) => post.id);
    const [entries, ownTexts, threadChoices] = await Promise.all([
      this.parts.ledger.summaryForPosts(ids),
      this.parts.ownTexts.forPosts(posts),
      this.parts.threadChoices.forPosts(posts),
    ]);
    return new Map(
      ids.map((id) => [
        id,
        {
          entries: entries.get(id) ?? [],
          ownTexts: ownTexts.get(id) ?? new Map(),
          threadChoices: threadChoices.get(id) ?? new Map(),
        },
      ]),
    );
  }

  /**
   * Sends the post to the targets it names that may be sent now, at once. `known`, when given, was
   * read with the post; else the post's rows are read first.
   */
  send(post: Post, known?: KnownOfPost): Promise<PostResult> {
    return syndicatePost(this.context, post, this.run, known);
  }

  /**
   * A batch's post under the pipeline (decision 0075): sent as `send` does, or, in a scheduled run,
   * held back while it is not due; with `claims` when its claim rode the previous post's write-back
   * (its gate was passed then), and `next`, the batch's next post, whose claim may ride this post's
   * write-back. Null: held back (nothing reported). `changed`: the post was read with its page
   * (`known`) and its claim took nothing, as after a change since (decision 0080): nothing was sent
   * or said of it, and the batch reads it again.
   */
  async syndicateBefore(
    post: Post,
    known: KnownOfPost | undefined,
    next: NextPost | undefined,
    claimed?: ClaimedNext,
  ): Promise<SentBefore> {
    const context = this.context;
    const run = this.batchRun;
    if (claimed)
      return mayHaveChanged(claimed.prepared.claim, claimed.claims)
        ? CHANGED
        : sendPrepared(context, claimed.prepared, run, Promise.resolve(claimed.claims), next);
    if (this.run.holdBackUntilDue && (await this.gate(post, known, true)) !== null) return { result: null };
    const prepared = await preparePost(context, post, run, known);
    if (!("claim" in prepared)) return { result: prepared };
    const claiming = context.ledger.runClaim(prepared.claim);
    // A claim that throws is told by each of its targets (sendPrepared), as ever.
    const changed = await claiming.then(
      (claims) => mayHaveChanged(prepared.claim, claims),
      () => false,
    );
    return changed ? CHANGED : sendPrepared(context, prepared, run, claiming, next);
  }

  /**
   * The batch's next post made ready to be claimed beside the current post's write-back: its gate
   * passed without a network request (a scheduled run's live check is one: the post then waits for
   * its own turn), its targets decided with the run's pauses as they stand now. Undefined: it is
   * not prepared, and the current post commits alone.
   */
  async prepareNext(post: Post, known: KnownOfPost | undefined): Promise<PreparedPost | undefined> {
    if (this.run.holdBackUntilDue && (await this.gate(post, known, false)) !== null) return undefined;
    const prepared = await preparePost(this.context, post, this.batchRun, known);
    return "claim" in prepared ? prepared : undefined;
  }

  /** A batch's run: a scheduled run never forces (its retry is the user's, not the schedule's). */
  private get batchRun(): PostSyndicationRun {
    return this.run.holdBackUntilDue ? { ...this.run, force: false } : this.run;
  }

  /**
   * A scheduled run's gate (schedule-gate.ts): null when the post may be sent now. Without
   * `mayRequest`, a post whose gate needs a live check (an HTTP request) is "not now" too.
   */
  private gate(post: Post, known: KnownOfPost | undefined, mayRequest: boolean) {
    // Stryker disable next-line ArrayDeclaration: the names go only into the waiting result, which syndicateBefore drops (decision 0049).
    const names = new Map(this.context.syndicators.map((s) => [s.info.uid, s.info.name]));
    return holdBack(
      {
        ledger: this.parts.ledger,
        liveChecks: this.parts.liveChecks,
        checkLive: (url) => this.parts.checkLive(url),
        rules: this.parts.scheduleRules,
        nameOf: (uid) => names.get(uid) ?? uid,
        now: this.parts.clock,
      },
      post,
      known?.entries,
      mayRequest,
    );
  }

  /** Carries out the post's follow-ups that are due (decision 0028). Null when none was due. */
  followUps(post: Post): Promise<PostResult | null> {
    return performFollowUps(this.context, post, this.run);
  }

  /**
   * Follows the changed posts (decision 0028), a batch's first part: works out what each changed
   * post's copies need, then carries out every follow-up that is due, handing each post's result to
   * `report`. A batch's retry is about sends: follow-ups that failed wait for their backoff. False
   * when stopped before the end.
   */
  async followChangedPosts(
    report: (result: PostResult) => void,
    shouldStop: () => boolean,
  ): Promise<boolean> {
    const { changes, ledger, deps } = this.parts;
    const context = this.context;
    const planned = new Set<string>();
    for (;;) {
      const noticed = (await changes.noticed(FOLLOW_PAGE)).filter(
        (change) => !planned.has(`${change.postId}@${change.noticedAt}`),
      );
      if (noticed.length === 0) break;
      for (const change of noticed) {
        if (shouldStop()) return false;
        planned.add(`${change.postId}@${change.noticedAt}`);
        try {
          const post = await deps.posts.findById(change.postId);
          if (post) await planFollowUps(context, post);
          await changes.followed(change);
        } catch (error) {
          // Kept for the next run; one post that cannot be planned must not hold up the others,
          // nor the sends that follow.
          deps.logger.error("Working out what a changed post's copies need failed", {
            postId: change.postId,
            error: describe(error),
          });
        }
      }
    }
    const run = { ...this.run, force: false };
    const tried = new Set<string>();
    for (;;) {
      const postIds = (await ledger.postsWithDueOperations(FOLLOW_PAGE)).filter((id) => !tried.has(id));
      if (postIds.length === 0) return true;
      for (const postId of postIds) {
        if (shouldStop()) return false;
        tried.add(postId);
        const post = await deps.posts.findById(postId);
        if (!post) continue;
        try {
          const result = await performFollowUps(context, post, run);
          if (result) report(result);
        } catch (error) {
          deps.logger.error("Following a post's change failed inside the server", {
            post: post.url,
            error: describe(error),
          });
        }
      }
    }
  }
}
