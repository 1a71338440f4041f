// The results page of one post: its row, each target's state, and the history of attempts, newest
// first. Shared by the page itself and by the retry and confirm actions, which answer htmx with the
// same section re-rendered.

import type { Response } from "express";
import { HttpError } from "../../contract/http-error.ts";
import { photos } from "../../contract/jf2.ts";
import type { Post } from "../../contract/posts.ts";
import type { Attempt } from "../../syndication/types.ts";
import { type FollowUpView, followUpView } from "./follow-up-view.ts";
import { type PostRowView, postRow } from "./post-row.ts";
import { type PageServices, translatorOf } from "./services.ts";
import { httpUrlOrNull, RETRYABLE_KINDS, SKIPPABLE_KINDS, type TargetStateKind } from "./target-view.ts";

const HISTORY_LIMIT = 50;

export interface AttemptView extends Attempt {
  targetName: string;
  /** The copy this attempt made or changed was deleted since: named, no longer linked. */
  copyDeleted: boolean;
}

export interface PostResultsView {
  row: PostRowView;
  attempts: AttemptView[];
  /** Some target failed, waits, was refused or has an unknown outcome: offer "Retry failed targets". */
  canRetry: boolean;
  /** Kinds offered "I posted it myself" (a failure, an unknown outcome) and "Skip for this post". */
  confirmableKinds: TargetStateKind[];
  skippableKinds: TargetStateKind[];
  mountPath: string;
  resultsHref: string;
  /** The user's own words per target uid (decision 0026). */
  ownTexts: Record<string, { text: string; source: "page" | "micropub" }>;
  /** What the copies did after the post was edited or deleted (decision 0028). */
  followUps: Array<FollowUpView & { copyDeleted: boolean }>;
  canRetryFollowUps: boolean;
  /** The post is deleted: its page is kept, to show what happened to its copies. */
  deleted: boolean;
  /** Targets whose copy can be removed now: syndicated, not removed, and able to delete copies. */
  removableUids: string[];
}

/**
 * A post id from the path: a decimal bigint. Anything else is 404, and so is a deleted post unless
 * `deleted` allows it (its results page, the retry of its copies' deletes).
 */
export async function findPostById(
  services: PageServices,
  res: Response,
  id: string,
  { deleted = false }: { deleted?: boolean } = {},
): Promise<Post> {
  const post = /^\d{1,19}$/.test(id) ? await services.posts.findById(id) : null;
  if (!post || (post.deleted && !deleted))
    throw new HttpError(404, "not_found", translatorOf(res)("syndicate.notFound"));
  return post;
}

export async function postResultsView(services: PageServices, post: Post): Promise<PostResultsView> {
  const [entries, attempts, ownTexts, operations, paused] = await Promise.all([
    services.syndication.reads.entriesForPost(post.id),
    services.syndication.reads.attemptsForPost(post.id, HISTORY_LIMIT),
    services.syndication.copies.ownTextsForPost(post),
    services.syndication.reads.operationsForPost(post.id),
    services.syndication.reads.pausedTargets(),
  ]);
  // What each copy holds by its latest recorded send or edit, against the post's photos now.
  const photoUrls = photos(post.properties, post.url).map((photo) => photo.url);
  const photosDiffer = (uid: string) => {
    const held = attempts.find((a) => a.targetUid === uid && a.outcome === "syndicated" && a.sent)?.sent;
    return (
      held !== undefined &&
      held !== null &&
      held.photos.map((photo) => photo.url).join("\n") !== photoUrls.join("\n")
    );
  };
  const threads = new Set(entries.filter((entry) => entry.thread !== null).map((entry) => entry.targetUid));
  const followUpViews = operations.map((entry) =>
    followUpView(entry, services.syndicators, photosDiffer, threads.has(entry.targetUid)),
  );
  const row = postRow(
    post,
    entries,
    services.syndicators,
    services.mountPath,
    services.syndication.reads.now(),
    undefined,
    paused,
  );
  const names = new Map(row.targets.map((target) => [target.uid, target.name]));
  // Copies that are gone: a link to one would lead nowhere (a restored post's new copies still do).
  const deletedCopies = new Set(
    followUpViews
      .filter((followUp) => followUp.operation === "delete" && followUp.kind === "done" && followUp.url)
      .map((followUp) => followUp.url),
  );
  const followUps = followUpViews.map((followUp) => ({
    ...followUp,
    copyDeleted: followUp.url !== null && deletedCopies.has(followUp.url),
  }));
  return {
    row,
    attempts: attempts.map((attempt) => ({
      ...attempt,
      url: httpUrlOrNull(attempt.url),
      targetName: names.get(attempt.targetUid) ?? attempt.targetUid,
      copyDeleted: attempt.url !== null && deletedCopies.has(attempt.url),
    })),
    // A deleted post is not sent again: only its copies' follow-ups may be retried.
    canRetry: !post.deleted && row.targets.some((target) => RETRYABLE_KINDS.has(target.kind)),
    // A target removed from the configuration has no record to confirm against: it can be skipped.
    confirmableKinds: [...RETRYABLE_KINDS],
    skippableKinds: [...SKIPPABLE_KINDS],
    mountPath: services.mountPath,
    resultsHref: row.detailsHref,
    ownTexts: Object.fromEntries(
      [...ownTexts].map(([uid, own]) => [uid, { text: own.text, source: own.source }]),
    ),
    followUps,
    canRetryFollowUps: followUps.some((followUp) => followUp.retryable),
    deleted: post.deleted,
    removableUids: post.deleted
      ? []
      : row.targets
          .filter((target) => target.kind === "syndicated" && !target.removedAt)
          .filter((target) => services.syndicators.some((s) => s.info.uid === target.uid && s.delete))
          .map((target) => target.uid),
  };
}
