// The per-post work of a run, in one object: what a batch does for each post it walks, what a
// single-post request does for its post, and what following changed posts does for each of them.
// Runs makes one per run; the batch and the single-post run then only decide which posts to hand it.

import type { Post } from "../../contract/posts.ts";
import { holdBack } from "../due/schedule-gate.ts";
import type { SyndicationParts } from "../parts.ts";
import type { PostResult } from "../types.ts";
import { performFollowUps, planFollowUps } from "./follow-ups.ts";
import {
  type KnownOfPost,
  type PostSyndicationContext,
  type PostSyndicationRun,
  syndicatePost,
} from "./syndicate-post.ts";

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
 * const result = await runner.syndicate(post); // claimed, sent, recorded, written back
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
   * A batch's post: sent as `send` does, or, in a scheduled run, held back while it is not due.
   * Null: the post is not due yet, and nothing is reported for it.
   */
  async syndicate(post: Post, known?: KnownOfPost): Promise<PostResult | null> {
    if (!this.run.holdBackUntilDue) return this.send(post, known);
    const context = this.context;
    const names = new Map(context.syndicators.map((s) => [s.info.uid, s.info.name]));
    const held = await holdBack(
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
    );
    return held ? null : syndicatePost(context, post, { ...this.run, force: false }, known);
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
