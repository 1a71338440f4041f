// Copies that follow their post (decision 0028). After a change of a post, `planFollowUps` works out what
// each copy needs and writes it to the ledger: an update where the copy would now differ, a delete
// where the post was deleted, a cancelled send where the post was deleted before it went out.
// `performFollowUps` then carries out what is due, claimed like sends, so that each is done once.

import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { Post } from "../../contract/posts.ts";
import type { PreviewOptions } from "../../contract/syndicator.ts";
import type { ThreadPost } from "../../contract/thread-progress.ts";
import { visibilityOf } from "../../contract/visibility.ts";
import { copyDigest, previewFor } from "../copies/copy-digest.ts";
import { wordsFor } from "../copies/own-texts.ts";
import type { SentCopy } from "../copies/sent-copy.ts";
import type { OperationClaim } from "../ledger/claims.ts";
import { requestedTargets, syndicationUrls } from "../post-targets.ts";
import type { FollowUp, LedgerEntry, OperationEntry, PostResult, TargetResult } from "../types.ts";
import { callFollowUp, callReplace } from "./call-syndicator.ts";
import { idempotencyKey } from "./idempotency-key.ts";
import {
  noteHealth,
  type PostSyndicationContext,
  type PostSyndicationRun,
  recordFailed,
  recordWhatIsSent,
  syndicatorsByUid,
} from "./syndicate-post.ts";

export const IN_FLIGHT_NOTE = "The copy is being sent; it is deleted once it has arrived";
export const BUSY_NOTE = "Being carried out by another run right now";
const ACTIVE = new Set(["pending", "failed", "unknown"]);

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The photos the copy holds (decision 0060): those its latest send or edit that went through
 * recorded; undefined when none was recorded (copies sent before records were kept).
 */
async function photosHeld(
  context: PostSyndicationContext,
  postId: string,
  uid: string,
): Promise<SentCopy["photos"] | undefined> {
  const attempts = await context.ledger.attemptsForPost(postId, 100);
  return attempts.find(
    (attempt) => attempt.targetUid === uid && attempt.outcome === "syndicated" && attempt.sent,
  )?.sent?.photos;
}

/** Works out what the copies of `post` need after it changed (or was deleted or restored). */
export async function planFollowUps(context: PostSyndicationContext, post: Post): Promise<void> {
  const { ledger } = context;
  const byUid = syndicatorsByUid(context.syndicators);
  const [entries, operations, removed] = await Promise.all([
    ledger.entriesForPost(post.id),
    ledger.operationsForPost(post.id),
    ledger.removedCopies(post.id),
  ]);
  const find = (uid: string, operation: FollowUp) =>
    operations.find((op) => op.targetUid === uid && op.operation === operation);
  const cancel = (op: OperationEntry | undefined) =>
    op && ACTIVE.has(op.state) ? ledger.requestOperation({ ...op, state: "cancelled" }) : Promise.resolve();

  if (post.deleted) {
    const uids = new Set([...entries.map((entry) => entry.targetUid), ...requestedTargets(post)]);
    for (const uid of uids) {
      const entry = entries.find((e) => e.targetUid === uid);
      // A delete pending makes an update pointless.
      await cancel(find(uid, "update"));
      const copied = entry?.state === "syndicated" || entry?.state === "sending";
      // Its copy was deleted already: the row waits for a restore, nothing to cancel.
      if (!copied && find(uid, "delete")?.state === "done") continue;
      // A send not made yet is cancelled: the claim refuses a deleted post, so it never goes out.
      const state = !copied ? "cancelled" : byUid.get(uid)?.delete ? "pending" : "kept";
      await ledger.requestOperation({
        postId: post.id,
        targetUid: uid,
        operation: "delete",
        state,
        url: entry?.state === "syndicated" ? entry.url : null,
        digest: null,
      });
    }
    return;
  }

  // Made unlisted or private: its copies keep what they hold. An update would carry what was
  // written since, words meant for fewer readers, to copies anyone can read.
  const hidden = visibilityOf(post.properties) !== "public";
  const texts = hidden ? undefined : await context.ownTexts?.forPost(post);
  const threadChoices = hidden ? undefined : await context.threadChoices?.forPost(post);
  for (const entry of entries) {
    // A copy the user removed stays on its way out, whatever the post becomes; nothing to edit.
    if (removed.has(entry.targetUid)) continue;
    // Restored before its copies were deleted: they stay.
    await cancel(find(entry.targetUid, "delete"));
    if (hidden) await cancel(find(entry.targetUid, "update"));
    else if (entry.state === "syndicated")
      await planUpdate(context, post, entry, byUid, { texts, threadChoices }, find);
  }
}

async function planUpdate(
  context: PostSyndicationContext,
  post: Post,
  entry: LedgerEntry,
  byUid: ReadonlyMap<string, SyndicatorPlugin>,
  choices: {
    texts: Map<string, { text: string }> | undefined;
    threadChoices: Map<string, boolean> | undefined;
  },
  find: (uid: string, operation: FollowUp) => OperationEntry | undefined,
): Promise<void> {
  const uid = entry.targetUid;
  const syndicator = byUid.get(uid);
  if (!syndicator) return;
  const words = wordsFor(post, choices.texts, uid, choices.threadChoices);
  const preview = previewFor(syndicator, post.properties, context.publication, words);
  if (!preview) return;
  // A like or a boost has nothing to edit.
  if (syndicator.update && preview.text === undefined) return;
  const digest = copyDigest(preview);
  if (entry.digest === null) {
    // Sent before copies followed their post: what it would get now is taken as what it got.
    await context.ledger.setBaseline(post.id, uid, digest);
    return;
  }
  const existing = find(uid, "update");
  if (digest === entry.digest) {
    // Edited back to what the copy holds: an update not made yet is not needed any more.
    if (existing && ACTIVE.has(existing.state))
      await context.ledger.requestOperation({ ...existing, state: "cancelled" });
    return;
  }
  await context.ledger.requestOperation({
    postId: post.id,
    targetUid: uid,
    operation: "update",
    state: syndicator.update ? "pending" : "kept",
    url: entry.url,
    digest,
  });
}

/**
 * Carries out the post's follow-ups that are due (all that wait, on a user's retry), side by side
 * per target, and writes the deleted copies' links out of the post. Null when none was due.
 */
export async function performFollowUps(
  context: PostSyndicationContext,
  post: Post,
  run: PostSyndicationRun,
): Promise<PostResult | null> {
  const now = context.now();
  const due = (await context.ledger.operationsForPost(post.id)).filter(
    (op) =>
      op.state === "pending" ||
      (op.state === "failed" &&
        (run.force || (!op.permanent && (op.nextAttemptAt === null || op.nextAttemptAt.getTime() <= now)))) ||
      (run.force && op.state === "unknown"),
  );
  if (due.length === 0) return null;
  const entries = await context.ledger.entriesForPost(post.id);
  const byUid = syndicatorsByUid(context.syndicators);
  const texts = await context.ownTexts?.forPost(post);
  const threadChoices = await context.threadChoices?.forPost(post);
  const deletePending = new Set(due.filter((op) => op.operation === "delete").map((op) => op.targetUid));
  // Copies the user removed while keeping the post ("Undo a copy"): deleted though the post is not.
  const removed = await context.ledger.removedCopies(post.id);

  /** Null for a follow-up that turned out pointless: cancelled, and not reported. */
  const followOne = async (op: OperationEntry): Promise<TargetResult | null> => {
    const uid = op.targetUid;
    const syndicator = byUid.get(uid);
    const name = syndicator?.info.name ?? uid;
    const base = { uid, name, operation: op.operation } as const;
    const entry = entries.find((e) => e.targetUid === uid);
    const pointless =
      entry?.state !== "syndicated" ||
      (op.operation === "update" && (post.deleted || deletePending.has(uid))) ||
      (op.operation === "delete" && !post.deleted && !removed.has(uid));
    if (pointless) {
      if (entry?.state === "sending") return { ...base, status: "skipped", error: IN_FLIGHT_NOTE };
      await context.ledger.requestOperation({ ...op, state: "cancelled" });
      return null;
    }
    const replacing = op.operation === "update" && op.replace;
    if (!syndicator?.[replacing ? "replace" : op.operation])
      return { ...base, status: "skipped", error: `${name} is not configured to ${op.operation} copies` };
    const paused = run.pauses?.get(uid);
    if (paused) return { ...base, status: "skipped", error: paused.reason };
    const claim = await context.ledger.claimOperation({
      postId: post.id,
      targetUid: uid,
      operation: op.operation,
      holder: context.holder,
      runId: run.runId,
      trigger: run.trigger,
      force: run.force,
    });
    if (!claim?.entry.url) return { ...base, status: "skipped", error: BUSY_NOTE };
    const words = wordsFor(post, texts, uid, threadChoices);
    const held = op.operation === "update" ? await photosHeld(context, post.id, uid) : undefined;
    // An edit's text is kept as a send's is; a delete sends nothing.
    if (op.operation === "update")
      await recordWhatIsSent(
        context,
        syndicator,
        post,
        claim,
        words,
        syndicator.updatesPhotos ? undefined : held,
      );
    if (replacing) return replaceCopy(context, post, syndicator, { claim, entry, words }, run, base);
    const outcome = await callFollowUp(syndicator, op.operation, post.properties, context.publication, {
      url: claim.entry.url,
      idempotencyKey: claim.entry.idempotencyKey,
      timeoutMs: syndicator.timeoutMs ?? context.targetTimeoutMs,
      words,
      ...(held ? { sentPhotos: held } : {}),
      // A thread's posts, saved again after each step (decision 0062).
      ...(entry.thread ? { thread: entry.thread } : {}),
      sentKey: entry.idempotencyKey,
      saveThread: (posts) => context.ledger.saveCopyThread(claim, posts),
    });
    if (!outcome.ok) {
      const error = await recordFailed(context, syndicator, claim, outcome, run.pauses);
      return { ...base, status: "failed", error };
    }
    await noteHealth(context, uid, () => context.health?.recordSuccess(uid, { checked: false }));
    await context.ledger.recordOperationDone(claim);
    // A copy the user removed is not sent again by itself: the target waits as skipped.
    if (op.operation === "delete" && removed.has(uid))
      await context.ledger.markSkipped(post.id, uid, idempotencyKey(post.url, uid));
    return { ...base, status: "syndicated", url: claim.entry.url };
  };

  const outcomes = await Promise.all(
    due.map((op) =>
      followOne(op).catch(
        (error: unknown): TargetResult => ({
          uid: op.targetUid,
          name: op.targetUid,
          operation: op.operation,
          status: "failed",
          error: `Internal error: ${describe(error)}`,
        }),
      ),
    ),
  );
  const targets = outcomes.filter((outcome): outcome is TargetResult => outcome !== null);
  if (targets.length === 0) return null;
  const syndication = await forgetDeletedCopies(context, post, targets, removed);
  const done = targets.some((t) => t.status === "syndicated");
  const failed = targets.some((t) => t.status === "failed");
  return {
    url: post.url,
    status: failed ? (done ? "partial" : "failed") : done ? "syndicated" : "unchanged",
    syndication,
    targets,
    followUp: true,
  };
}

/**
 * "Replace the thread" (decision 0062): the copy is deleted and sent anew in one change, its new
 * posts and URL kept, and the post's link to it replaced by the new one.
 */
async function replaceCopy(
  context: PostSyndicationContext,
  post: Post,
  syndicator: SyndicatorPlugin,
  { claim, entry, words }: { claim: OperationClaim; entry: LedgerEntry; words: PreviewOptions },
  run: PostSyndicationRun,
  base: Pick<TargetResult, "uid" | "name" | "operation">,
): Promise<TargetResult> {
  const old = claim.entry.url ?? "";
  let posts: ThreadPost[] | null = null;
  const outcome = await callReplace(syndicator, post.properties, context.publication, {
    url: old,
    idempotencyKey: claim.entry.idempotencyKey,
    timeoutMs: syndicator.timeoutMs ?? context.targetTimeoutMs,
    ...(entry.thread ? { thread: entry.thread } : {}),
    words,
    saveThread: async (saved) => {
      posts = saved;
    },
  });
  if (!outcome.ok) {
    const error = await recordFailed(context, syndicator, claim, outcome, run.pauses);
    return { ...base, status: "failed", error };
  }
  await noteHealth(context, base.uid, () => context.health?.recordSuccess(base.uid, { checked: false }));
  await context.ledger.recordReplaced(claim, outcome.url, posts);
  try {
    await context.posts.update(post.url, {
      delete: { syndication: [old] },
      add: { syndication: [outcome.url] },
    });
  } catch (error) {
    context.logger.error("Could not write the replaced copy's link to the post", {
      post: post.url,
      error: describe(error),
    });
  }
  return { ...base, status: "syndicated", url: outcome.url };
}

/**
 * A deleted copy's link leaves the post, and the post names the target again, so that it is sent
 * as a new copy should the post be restored; not a copy the user removed, which waits for them.
 */
async function forgetDeletedCopies(
  context: PostSyndicationContext,
  post: Post,
  targets: readonly TargetResult[],
  removed: ReadonlyMap<string, Date>,
): Promise<string[]> {
  const deleted = targets.filter((t) => t.operation === "delete" && t.status === "syndicated");
  const present = syndicationUrls(post);
  if (deleted.length === 0) return present;
  const urls = deleted.flatMap((t) => (t.url && present.includes(t.url) ? [t.url] : []));
  const uids = deleted
    .map((t) => t.uid)
    .filter((uid) => !requestedTargets(post).includes(uid) && !removed.has(uid));
  try {
    const updated = await context.posts.update(post.url, {
      ...(urls.length > 0 ? { delete: { syndication: urls } } : {}),
      ...(uids.length > 0 ? { add: { "mp-syndicate-to": uids } } : {}),
    });
    return syndicationUrls(updated);
  } catch (error) {
    context.logger.error("Could not take the deleted copies' links out of the post", {
      post: post.url,
      error: describe(error),
    });
    return present.filter((url) => !urls.includes(url));
  }
}
