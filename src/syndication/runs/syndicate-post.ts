// Syndicates one post: every target it names is claimed in the ledger and called concurrently,
// each under its own timeout; then the post is updated once with what was learnt.

import type { Logger } from "../../contract/logger.ts";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { AlongsideStatement, PostSource } from "../../contract/post-source.ts";
import type { Post, PostUpdate } from "../../contract/posts.ts";
import type { PreviewOptions, Publication } from "../../contract/syndicator.ts";
import { completedThread } from "../../contract/thread-progress.ts";
import { visibilityOf } from "../../contract/visibility.ts";
import { joined, partOf, together } from "../alongside.ts";
import { digestFor, previewFor } from "../copies/copy-digest.ts";
import { type OwnText, type OwnTexts, wordsFor } from "../copies/own-texts.ts";
import { type SentCopy, sentCopyOf } from "../copies/sent-copy.ts";
import type { ThreadChoices } from "../copies/thread-choices.ts";
import { asListed } from "../ledger/as-listed.ts";
import type { Claim, OperationClaim, PreparedClaim } from "../ledger/claims.ts";
import type { Ledger } from "../ledger/ledger.ts";
import {
  type Outcome,
  type PostOutcomes,
  type RecordedOutcome,
  recordedOutcomes,
} from "../ledger/outcomes.ts";
import { UNKNOWN_OUTCOME_ERROR } from "../ledger/rows.ts";
import { requestedTargets, syndicationUrls } from "../post-targets.ts";
import type { LedgerEntry, PostResult, TargetResult, Trigger } from "../types.ts";
import { callSyndicator, type SyndicatorFailure } from "./call-syndicator.ts";
import { type FailureNotices, noticeKindOf } from "./failure-notices.ts";
import { idempotencyKey } from "./idempotency-key.ts";
import { postStatus } from "./post-result.ts";
import { isTargetWide, type TargetHealthStore } from "./target-health.ts";
import { TargetPauses } from "./target-pauses.ts";

export const DRAFT_NOTE = "The post is a draft; it is syndicated once published";
/** Copies elsewhere are public and listed: a post its author keeps back is never sent. */
export const HIDDEN_NOTES = {
  unlisted: "The post is unlisted (visibility: unlisted); it is not syndicated",
  private: "The post is private (visibility: private); it is not syndicated",
} as const;
const BUSY_NOTE = "Being sent by another run right now";

export interface PostSyndicationContext {
  ledger: Ledger;
  posts: PostSource;
  syndicators: readonly SyndicatorPlugin[];
  publication: Publication;
  logger: Logger;
  /** This instance, recorded on each claim. */
  holder: string;
  targetTimeoutMs: number;
  /** Where what a send says of the target as a whole (refused, rate limited, well) is kept. */
  health?: TargetHealthStore;
  /** The user's own words per target, sent instead of the template's text. */
  ownTexts?: OwnTexts;
  /** The user's thread choice per target (decision 0058). */
  threadChoices?: ThreadChoices;
  /** Where failures that need the user are told (e-mail, webhook), and recoveries. */
  notices?: FailureNotices;
  /** The time in milliseconds: the core's clock (Date.now unless a test gives its own). */
  now: () => number;
}

export interface PostSyndicationRun {
  runId: string | null;
  trigger: Trigger;
  /** A user's retry: targets in backoff, refused permanently, or of unknown outcome are sent too. */
  force: boolean;
  /** The run's paused targets (a batch shares one across its posts). */
  pauses?: TargetPauses;
}

/**
 * What the ledger and the page hold for a post, read beforehand: a batch reads them for a page of
 * posts at once, as it reads the posts. The claim stays the arbiter: a row changed since is
 * reported as it is when its claim fails.
 */
export interface KnownOfPost {
  entries: readonly LedgerEntry[];
  ownTexts: ReadonlyMap<string, OwnText>;
  threadChoices: ReadonlyMap<string, boolean>;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * What one target of a post came to: its result and, for a target that was sent, the outcome to
 * record, with the post's other outcomes and its write-back in one statement (decision 0068).
 */
interface Sent {
  target: TargetResult;
  outcome?: Outcome;
  /** A success of a target this process knew to be well: its health is noted in that statement too. */
  wellAgain?: boolean;
}

/** Why a target that could not be claimed is not being sent. */
function notClaimed(entry: LedgerEntry | undefined, uid: string, name: string): TargetResult {
  if (entry?.state === "syndicated" && entry.url)
    return { uid, name, status: "already_syndicated", url: entry.url };
  if (entry?.state === "unknown")
    return { uid, name, status: "skipped", error: entry.lastError ?? UNKNOWN_OUTCOME_ERROR };
  if (entry?.state === "failed") {
    const reason = entry.lastError ?? "Failed";
    const when = entry.permanent
      ? "refused permanently: retry it from the syndication page"
      : `next attempt after ${entry.nextAttemptAt?.toISOString() ?? "the backoff"}`;
    return { uid, name, status: "skipped", error: `${reason} (${when})` };
  }
  return { uid, name, status: "skipped", error: BUSY_NOTE };
}

/** What a run says of a target the post names but nobody configured (any more). */
export function unconfiguredNote(uid: string): string {
  return `No syndication target is configured for ${uid}; the post does not wait for it`;
}

/** A row that a claim would take now (or no row yet); others are reported without a round trip. */
function looksClaimable(entry: LedgerEntry | undefined, force: boolean, now: number): boolean {
  if (!entry) return true;
  // A target the user skipped that the post names again: they want it after all.
  if (entry.state === "pending" || entry.state === "skipped") return true;
  if (force) return entry.state === "failed" || entry.state === "unknown";
  if (entry.state !== "failed" || entry.permanent) return false;
  return entry.nextAttemptAt === null || entry.nextAttemptAt.getTime() <= now;
}

/** The post and what its page read beside it, as a claim compares them (decision 0080). */
function listedAs(post: Post, known: KnownOfPost): string {
  const pageTexts = new Map(
    [...known.ownTexts].flatMap(([uid, own]): [string, string][] =>
      own.source === "page" ? [[uid, own.text]] : [],
    ),
  );
  return asListed(post, { pageTexts, threadChoices: known.threadChoices });
}

/** The configured syndicators by uid; the first of two with one uid is the one used. */
export function syndicatorsByUid(syndicators: readonly SyndicatorPlugin[]): Map<string, SyndicatorPlugin> {
  const byUid = new Map<string, SyndicatorPlugin>();
  for (const syndicator of syndicators)
    if (!byUid.has(syndicator.info.uid)) byUid.set(syndicator.info.uid, syndicator);
  return byUid;
}

/** What a target comes to without a round trip, or the syndicator that will send it once claimed. */
type Decision = { target: TargetResult } | { syndicator: SyndicatorPlugin };

/**
 * A post's targets decided and its claim made ready (its tokens made), before the claim runs: on its
 * own, or, for a batch's next post, inside the previous post's write-back (decision 0075).
 */
export interface PreparedPost {
  post: Post;
  entries: ReadonlyMap<string, LedgerEntry>;
  ownTexts: ReadonlyMap<string, OwnText> | undefined;
  threadChoices: ReadonlyMap<string, boolean> | undefined;
  uids: readonly string[];
  decided: ReadonlyMap<string, Decision>;
  claim: PreparedClaim;
}

/**
 * The next post of a batch, prepared once the current post's targets have answered, and only when
 * its claim may ride the current post's write-back; undefined: the current post commits alone.
 */
export type NextPost = () => Promise<PreparedPost | undefined>;

/** The next post and the claims its prepared claim took (decision 0075). */
export interface ClaimedNext {
  prepared: PreparedPost;
  claims: ReadonlyMap<string, Claim>;
}

export async function syndicatePost(
  context: PostSyndicationContext,
  post: Post,
  run: PostSyndicationRun,
  known?: KnownOfPost,
): Promise<PostResult> {
  const prepared = await preparePost(context, post, run, known);
  if (!("claim" in prepared)) return prepared;
  return (await sendPrepared(context, prepared, run, context.ledger.runClaim(prepared.claim))).result;
}

/**
 * Decides what each target of the post comes to and makes its claim ready. A draft or a post its
 * author keeps back is a result at once (nothing to claim). The run's pauses are read now: a batch
 * prepares its next post only once the current post's targets have answered, so that a target one
 * of them paused is not claimed (decision 0075).
 */
export async function preparePost(
  context: PostSyndicationContext,
  post: Post,
  run: PostSyndicationRun,
  known?: KnownOfPost,
): Promise<PreparedPost | PostResult> {
  const requested = requestedTargets(post);
  const byUid = syndicatorsByUid(context.syndicators);
  const nameOf = (uid: string) => byUid.get(uid)?.info.name ?? uid;

  const visibility = visibilityOf(post.properties);
  if (post.status === "draft" || visibility !== "public") {
    const note = visibility === "public" ? DRAFT_NOTE : HIDDEN_NOTES[visibility];
    const targets = requested.map(
      (uid): TargetResult => ({
        uid,
        name: nameOf(uid),
        status: "skipped",
        error: note,
      }),
    );
    return { url: post.url, status: "unchanged", syndication: syndicationUrls(post), targets };
  }

  const entries = new Map(
    (known?.entries ?? (await context.ledger.entriesForPost(post.id))).map((e) => [e.targetUid, e]),
  );
  const ownTexts = known ? known.ownTexts : await context.ownTexts?.forPost(post);
  const threadChoices = known ? known.threadChoices : await context.threadChoices?.forPost(post);
  // Targets the ledger says are syndicated but the post no longer names are reported too, so that
  // the result describes the whole post, and repaired if their URL never reached the post.
  const uids = [
    ...requested,
    ...[...entries.values()]
      .filter((entry) => entry.state === "syndicated" && !requested.includes(entry.targetUid))
      .map((entry) => entry.targetUid),
  ];

  const decide = (uid: string): Decision => {
    const name = nameOf(uid);
    const known = entries.get(uid);
    const requestedNow = requested.includes(uid);
    const syndicator = byUid.get(uid);
    if (requestedNow && !syndicator && known?.state !== "syndicated")
      return { target: { uid, name, status: "skipped", error: unconfiguredNote(uid), unconfigured: true } };
    if (!requestedNow || !looksClaimable(known, run.force, context.now()) || !syndicator)
      return { target: notClaimed(known, uid, name) };
    const paused = run.pauses?.get(uid);
    if (paused) return { target: { uid, name, status: "skipped", error: paused.reason } };
    return { syndicator };
  };
  const decided = new Map(uids.map((uid) => [uid, decide(uid)]));
  const toClaim = uids.flatMap((uid) => {
    const decision = decided.get(uid);
    return decision && "syndicator" in decision ? [{ uid, syndicator: decision.syndicator }] : [];
  });
  // Every target of the post that may be sent is claimed in one statement (decision 0063); when the
  // post was read with a page, only while it is as read (decision 0080). Its attempt rows keep what
  // each target will send and the own words it carries (decision 0081): the claim commits before
  // any request, and takes nothing when the post is no longer what these were made from.
  const claim = context.ledger.prepareClaim({
    postId: post.id,
    targets: toClaim.map(({ uid, syndicator }) => {
      const words = wordsFor(post, ownTexts, uid, threadChoices);
      const sent = sentCopyFor(context, syndicator, post, words);
      return {
        targetUid: uid,
        idempotencyKey: idempotencyKey(post.url, uid),
        ...(sent ? { sent } : {}),
        ...(words.text !== undefined ? { ownText: words.text } : {}),
      };
    }),
    holder: context.holder,
    runId: run.runId,
    trigger: run.trigger,
    force: run.force,
    ...(known ? { asListed: listedAs(post, known) } : {}),
  });
  return { post, entries, ownTexts, threadChoices, uids, decided, claim };
}

/**
 * Sends a prepared post under `claiming` (its claim, run on its own or beside the previous post's
 * write-back), then records the outcomes and writes the links back. `next`, a batch's: the next
 * post, whose claim may ride this write-back; what it took comes back as `next`.
 */
export async function sendPrepared(
  context: PostSyndicationContext,
  prepared: PreparedPost,
  run: PostSyndicationRun,
  claiming: Promise<ReadonlyMap<string, Claim>>,
  next?: NextPost,
): Promise<{ result: PostResult; next?: ClaimedNext }> {
  const { post, entries, ownTexts, threadChoices, uids, decided } = prepared;
  const byUid = syndicatorsByUid(context.syndicators);
  const nameOf = (uid: string) => byUid.get(uid)?.info.name ?? uid;
  // A claim that fails is told by each target that waits on it (below), not as an unhandled rejection.
  claiming.catch(() => {});
  // Someone else changed a row since we read it: what the rows are now, read once for the post.
  let current: Promise<LedgerEntry[]> | undefined;
  const currentEntries = () => {
    current ??= context.ledger.entriesForPost(post.id);
    return current;
  };

  const sendOne = async (uid: string): Promise<Sent> => {
    const decision = decided.get(uid);
    if (!decision) return { target: notClaimed(entries.get(uid), uid, nameOf(uid)) };
    if ("target" in decision) return decision;
    const { syndicator } = decision;
    const claim = (await claiming).get(uid);
    if (!claim) {
      const now = (await currentEntries()).find((e) => e.targetUid === uid);
      return { target: notClaimed(now, uid, nameOf(uid)) };
    }
    // What it sends and its own words were recorded by the claim's attempt row (decision 0081).
    const words = wordsFor(post, ownTexts, uid, threadChoices);
    return send(context, post, syndicator, claim, run.pauses, words);
  };

  const internalFailure = (uid: string, error: unknown): TargetResult => {
    context.logger.error("Syndicating a post to a target failed inside the server", {
      post: post.url,
      target: uid,
      error: describe(error),
    });
    return { uid, name: nameOf(uid), status: "failed", error: `Internal error: ${describe(error)}` };
  };
  const sent = await Promise.all(
    uids.map((uid) =>
      sendOne(uid).catch((error: unknown): Sent => ({ target: internalFailure(uid, error) })),
    ),
  );
  const written = await writeBack(context, post, sent, entries, internalFailure, next);
  const { targets, syndication } = written;
  return {
    result: { url: post.url, status: postStatus(targets), syndication, targets },
    ...(written.next ? { next: written.next } : {}),
  };
}

/**
 * Keeps with the attempt what it is about to send (decision 0054), so that the history says what
 * the copy said whatever happens to the post afterwards. A failure to record it is logged and does
 * not stop the send.
 */
export async function recordWhatIsSent(
  context: PostSyndicationContext,
  syndicator: SyndicatorPlugin,
  post: Post,
  claim: Claim | OperationClaim,
  words: PreviewOptions,
  keptPhotos?: SentCopy["photos"],
): Promise<void> {
  const sent = sentCopyFor(context, syndicator, post, words);
  if (!sent) return;
  try {
    // An edit that cannot change photos leaves the copy's as they were: the record says so too.
    await context.ledger.recordSent(claim.attemptId, keptPhotos ? { ...sent, photos: keptPhotos } : sent);
  } catch (error) {
    couldNotRecord(context, syndicator, post, error);
  }
}

/**
 * What `syndicator` would send of `post` with `words`, as the history keeps it; undefined when it
 * cannot preview, or its preview fails (logged: the send goes ahead without the record).
 */
function sentCopyFor(
  context: PostSyndicationContext,
  syndicator: SyndicatorPlugin,
  post: Post,
  words: PreviewOptions,
): SentCopy | undefined {
  try {
    const preview = previewFor(syndicator, post.properties, context.publication, words);
    return preview ? sentCopyOf(preview) : undefined;
  } catch (error) {
    couldNotRecord(context, syndicator, post, error);
    return undefined;
  }
}

function couldNotRecord(
  context: PostSyndicationContext,
  syndicator: SyndicatorPlugin,
  post: Post,
  error: unknown,
): void {
  context.logger.warn("Could not record what an attempt sends", {
    post: post.url,
    target: syndicator.info.uid,
    error: describe(error),
  });
}

/** Calls the syndicator for a claimed row and records the outcome in the ledger. */
async function send(
  context: PostSyndicationContext,
  post: Post,
  syndicator: SyndicatorPlugin,
  claim: Claim,
  pauses: TargetPauses | undefined,
  words: PreviewOptions,
): Promise<Sent> {
  const { uid, name } = syndicator.info;
  let checkpoint = claim.entry.checkpoint;
  const outcome = await callSyndicator(syndicator, post.properties, context.publication, {
    words,
    idempotencyKey: claim.entry.idempotencyKey,
    timeoutMs: syndicator.timeoutMs ?? context.targetTimeoutMs,
    resumeFrom: claim.entry.checkpoint ?? undefined,
    checkpoint: async (value) => {
      await context.ledger.saveCheckpoint(claim, value);
      checkpoint = value;
    },
  });
  if (outcome.ok) {
    const wellAgain = context.health?.knownWell(uid) === true;
    if (!wellAgain)
      await noteHealth(context, uid, () => context.health?.recordSuccess(uid, { checked: false }));
    context.notices?.recovered(uid, name);
    const target: TargetResult = { uid, name, status: "syndicated", url: outcome.url };
    let digest: string | null = null;
    try {
      // What the copy holds, so that an edit of the post that changes it is followed (decision 0028).
      digest = digestFor(syndicator, post.properties, context.publication, words);
    } catch (error) {
      // The copy exists whatever its digest: recorded without one, so that it is never sent again.
      context.logger.error("Could not work out what a copy holds", {
        post: post.url,
        target: uid,
        error: describe(error),
      });
    }
    // A thread's posts stay with the copy, for its edits and deletion (decision 0062).
    const thread = completedThread(checkpoint) ?? null;
    return {
      target,
      outcome: { kind: "syndicated", claim, url: outcome.url, digest, thread, writtenBack: false },
      wellAgain,
    };
  }
  const failure = await failureNoted(context, syndicator, claim, outcome, pauses, post.url);
  return {
    target: { uid, name, status: "failed", error: outcome.error },
    outcome: { ...failure, claim },
  };
}

/**
 * Records a send or follow-up that failed: a target-wide failure in the target's health, a pause
 * for the run, and in the ledger a failure to back off from, or an unknown outcome for a target
 * that does not honour idempotency. Returns what the user is told.
 */
export async function recordFailed(
  context: PostSyndicationContext,
  syndicator: SyndicatorPlugin,
  claim: Claim | OperationClaim,
  outcome: SyndicatorFailure,
  pauses: TargetPauses | undefined,
  /** The post's URL, named in a notice. */
  postUrl?: string,
): Promise<string> {
  const failure = await failureNoted(context, syndicator, claim, outcome, pauses, postUrl);
  if (failure.kind === "unknown") {
    const entry = await context.ledger.recordUnknown(claim, outcome.error);
    return entry?.lastError ?? outcome.error;
  }
  if (failure.kind === "held") await context.ledger.recordHeld(claim, outcome);
  else await context.ledger.recordFailure(claim, outcome);
  return outcome.error;
}

/** A failed send's outcome, as the ledger is to record it. */
type FailureOutcome = DistributiveOmit<Extract<Outcome, { kind: "failed" | "held" | "unknown" }>, "claim">;
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/**
 * What recordFailed does at once (the log, the target's health, the run's pause, the notice),
 * returning what the ledger is to record, for a send to record with its post's others (decision 0068).
 */
async function failureNoted(
  context: PostSyndicationContext,
  syndicator: SyndicatorPlugin,
  claim: Claim | OperationClaim,
  outcome: SyndicatorFailure,
  pauses: TargetPauses | undefined,
  postUrl?: string,
): Promise<FailureOutcome> {
  const { uid, name } = syndicator.info;
  const unknown = outcome.uncertain && syndicator.honoursIdempotencyKey !== true;
  context.logger.warn("A syndication target failed", {
    post: claim.entry.postId,
    target: uid,
    ...("operation" in claim.entry ? { operation: claim.entry.operation } : {}),
    permanent: outcome.permanent,
    ...(unknown ? { outcome: "unknown" } : {}),
    error: outcome.error,
  });
  if (isTargetWide(outcome))
    await noteHealth(context, uid, () => context.health?.recordFailure(uid, outcome, { checked: false }));
  const pause = TargetPauses.after(outcome, name, syndicator.credentialSetting);
  if (pause) pauses?.pause(uid, pause);
  const kind = noticeKindOf({ ...outcome, unknown });
  if (kind)
    context.notices?.failure({
      kind,
      targetUid: uid,
      targetName: name,
      error: outcome.error,
      ...(postUrl ? { postUrl } : {}),
      ...(syndicator.credentialSetting ? { setting: syndicator.credentialSetting } : {}),
      ...(syndicator.holdWhileRefused === true ? { reconnect: true } : {}),
    });
  const status = outcome.status === undefined ? {} : { status: outcome.status };
  if (unknown) return { kind: "unknown", error: outcome.error };
  if (pause?.kind === "refused" && syndicator.holdWhileRefused === true)
    return { kind: "held", error: outcome.error, ...status };
  return {
    kind: "failed",
    error: outcome.error,
    permanent: outcome.permanent,
    ...(outcome.retryAt ? { retryAt: outcome.retryAt } : {}),
    ...status,
  };
}

/** Records what a send said of its target; the send's own outcome never fails by it. */
export async function noteHealth(
  context: PostSyndicationContext,
  uid: string,
  write: () => Promise<void> | undefined,
): Promise<void> {
  try {
    await write();
  } catch (error) {
    context.logger.error("Could not record the state of a target", { target: uid, error: describe(error) });
  }
}

/**
 * Records a post's outcomes and writes them back in one statement where the post source offers one
 * (decision 0068): the new URLs (and those of syndicated targets whose URL never reached the post)
 * added to `syndication`, the syndicated targets removed from `mp-syndicate-to`. A URL that reached
 * the post once and is gone was removed by the user, and stays removed. Returns the targets as
 * recorded and the post's syndication URLs afterwards.
 *
 * With `next` (a batch), the next post's claim rides the same statement when nothing after its
 * commit waits on the network (decision 0075): the post has nothing to write back, or the source
 * promises it of this post's write-back (PostSource.returnsOnCommit). Then `next` is prepared here,
 * after this post's answers, and what its claim took comes back, read back by its tokens when the
 * statement's answer was lost.
 */
async function writeBack(
  context: PostSyndicationContext,
  post: Post,
  sent: readonly Sent[],
  entries: ReadonlyMap<string, LedgerEntry>,
  internalFailure: (uid: string, error: unknown) => TargetResult,
  next?: NextPost,
): Promise<{ targets: TargetResult[]; syndication: string[]; next?: ClaimedNext }> {
  const targets = sent.map(({ target }) => target);
  const present = syndicationUrls(post);
  const requested = requestedTargets(post);
  const done = targets.filter(
    (t) =>
      t.status === "syndicated" ||
      (t.status === "already_syndicated" && entries.get(t.uid)?.writtenBack !== true),
  );
  const add = [...new Set(done.flatMap((t) => (t.url && !present.includes(t.url) ? [t.url] : [])))];
  const remove = targets
    .filter((t) => t.status === "syndicated" || t.status === "already_syndicated")
    .map((t) => t.uid)
    .filter((uid) => requested.includes(uid));
  // A copy whose URL this update adds is marked written back by the database, in the update's own
  // statement (migration 014); those whose URL the post held already are marked by the outcomes.
  const unmarked = done.filter((t) => !(t.url && add.includes(t.url))).map((t) => t.uid);
  const outcomes: PostOutcomes = {
    postId: post.id,
    outcomes: sent.flatMap(({ outcome }): Outcome[] =>
      !outcome
        ? []
        : outcome.kind === "syndicated"
          ? [{ ...outcome, writtenBack: unmarked.includes(outcome.claim.entry.targetUid) }]
          : [outcome],
    ),
    writtenBack: unmarked,
  };
  const reported = (recorded: ReadonlyMap<string, RecordedOutcome>) =>
    sent.map(({ target, outcome }) =>
      outcome?.kind === "unknown"
        ? { ...target, error: recorded.get(target.uid)?.last_error ?? target.error }
        : target,
    );
  // What the sends said of targets known to be well, in the same statement; a send's own outcome
  // never fails by it (below).
  const health = context.health?.wellAgain(
    sent.flatMap(({ target, wellAgain }) => (wellAgain ? [target.uid] : [])),
  );
  const { posts, ledger } = context;
  const writes = add.length > 0 || remove.length > 0;

  // The next post rides this commit only when nothing after it waits on the network (decision
  // 0075, guard 2): else its claim, made after this commit, would hold its rows `sending` meanwhile.
  const mayRide =
    next !== undefined &&
    (!writes || (posts.updateAlongside !== undefined && posts.returnsOnCommit?.(post) === true));
  // A next post that cannot be prepared is taken at its turn; this post's outcomes never wait on it.
  const following = mayRide
    ? await next().catch((error: unknown) => {
        context.logger.error("Could not prepare a batch's next post", { error: describe(error) });
        return undefined;
      })
    : undefined;
  const riding = following && following.claim.uids.length > 0 ? following : undefined;
  /** What the riding claim took, once the statement's answer is read. */
  let nextClaims: ReadonlyMap<string, Claim> | undefined;
  const combined = (statement: AlongsideStatement): AlongsideStatement =>
    riding ? joined({ outcomes: statement, claims: ledger.claimStatement(riding.claim) }) : statement;
  const answered = (value: unknown): Map<string, RecordedOutcome> => {
    if (!riding) return recordedOutcomes(value);
    nextClaims = ledger.claimsFrom(riding.claim, partOf(value, "claims"));
    return recordedOutcomes(partOf(value, "outcomes"));
  };

  // The outcomes in one statement of their own. Each row moves only while it is `sending` under its
  // claim, so that recording them again after a write-back that was undone changes nothing twice.
  const recordAlone = async (
    extra?: AlongsideStatement,
    withNext = false,
  ): Promise<{ targets: TargetResult[]; recorded: boolean }> => {
    try {
      if (withNext && riding)
        return {
          targets: reported(
            answered(
              await ledger.runAlongside(combined(together(ledger.outcomesStatement(outcomes), extra))),
            ),
          ),
          recorded: true,
        };
      return { targets: reported(await ledger.recordOutcomes(outcomes, extra)), recorded: true };
    } catch (error) {
      if (extra || (withNext && riding)) return recordAlone();
      const syndicated = sent.filter(({ outcome }) => outcome?.kind === "syndicated");
      if (syndicated.length > 0)
        // The copies exist whatever the ledger says: reported and written to the post, so that the
        // post stops naming their targets and is never sent again. Their rows, left `sending`, become
        // `unknown` at the next run for the user to confirm.
        context.logger.error("The target has the post but the ledger could not record it", {
          post: post.url,
          targets: syndicated.map(({ target }) => target.uid),
          error: describe(error),
        });
      return {
        targets: sent.map(({ target, outcome }) =>
          !outcome || outcome.kind === "syndicated" ? target : internalFailure(target.uid, error),
        ),
        recorded: false,
      };
    }
  };

  const written = await (async (): Promise<{ targets: TargetResult[]; syndication: string[] }> => {
    if (!writes) return { targets: (await recordAlone(health, true)).targets, syndication: present };
    const update: PostUpdate = {};
    if (add.length > 0) update.add = { syndication: add };
    if (remove.length > 0) update.delete = { "mp-syndicate-to": remove };
    let recorded: TargetResult[];
    try {
      if (!posts.updateAlongside) {
        recorded = (await recordAlone(health)).targets;
        return { targets: recorded, syndication: syndicationUrls(await posts.update(post.url, update)) };
      }
      const written = await posts.updateAlongside(
        post.url,
        update,
        combined(together(ledger.outcomesStatement(outcomes), health)),
        post,
      );
      recorded = reported(answered(written.alongside));
      return { targets: recorded, syndication: syndicationUrls(written.post) };
    } catch (error) {
      // The one statement was undone whole, or the store refused after it was committed: the outcomes
      // on their own (once more changes nothing).
      const again = await recordAlone();
      if (!again.recorded) {
        // The ledger refuses: the links are written back all the same, so that the post stops naming
        // a target that has it.
        try {
          const updated = await posts.update(post.url, update);
          return { targets: again.targets, syndication: syndicationUrls(updated) };
        } catch {
          // Told below, with the first failure.
        }
      }
      // The ledger holds the truth; the next run repairs the post from it.
      context.logger.error("Could not write the syndication URLs back to the post", {
        post: post.url,
        error: describe(error),
      });
      return { targets: again.targets, syndication: [...present, ...add] };
    }
  })();
  if (!following) return written;
  if (!riding) return { ...written, next: { prepared: following, claims: new Map() } };
  if (nextClaims) return { ...written, next: { prepared: following, claims: nextClaims } };
  // The statement threw, yet may have been committed (its post gone, the store refusing after it):
  // what the claim took is read back by its tokens and adopted, and only the targets it did not take
  // are claimed afresh (decision 0075, guard 1). Else its rows would stay `sending`, never sent.
  try {
    return { ...written, next: { prepared: following, claims: await adoptClaims(ledger, riding.claim) } };
  } catch (error) {
    context.logger.error("Could not learn what the next post's claim took", {
      post: following.post.url,
      error: describe(error),
    });
    return written;
  }
}

/** A riding claim whose answer was lost: the rows it took, and the targets it did not take claimed now. */
async function adoptClaims(ledger: Ledger, claim: PreparedClaim): Promise<ReadonlyMap<string, Claim>> {
  const adopted = await ledger.readBackClaim(claim);
  const missing = claim.request.targets.filter((target) => !adopted.has(target.targetUid));
  if (missing.length === 0) return adopted;
  const fresh = await ledger.runClaim(ledger.prepareClaim({ ...claim.request, targets: missing }));
  return new Map([...adopted, ...fresh]);
}
