// What an automatic (scheduled) run may send of a post. A click, a webhook, POST {mountPath} and
// the CLI send at once; the scheduler holds a new post back until it is due: afterPublishMs after
// publishing and, with whenLive, once its URL answers 2xx. A post that has ledger rows has been
// sent before (by anyone), so its page was meant to be out: only new posts are held back.
import type { Post } from "../../contract/posts.ts";
import type { Ledger } from "../ledger/ledger.ts";
import { requestedTargets, syndicationUrls } from "../post-targets.ts";
import type { LedgerEntry, PostResult } from "../types.ts";
import { GIVE_UP_AFTER_MS, type LiveAnswer, type LiveChecks } from "./live-checks.ts";

export interface ScheduleRules {
  whenLive: boolean;
  afterPublishMs: number;
}

export interface GateDependencies {
  ledger: Ledger;
  liveChecks: LiveChecks;
  checkLive(url: string): Promise<LiveAnswer>;
  rules: ScheduleRules;
  nameOf(uid: string): string;
  /** The time in milliseconds: the core's clock. */
  now(): number;
}

/** What holdBack answers without a request when the post's gate needs a live check (an HTTP request). */
// Stryker disable next-line StringLiteral: a sentinel compared by identity (PostRunner: anything but null is "not now"); its words are never shown.
export const NEEDS_REQUEST = "needs a live check";

/**
 * Null when the post may be sent now; otherwise the result that says what it waits for.
 * `knownEntries` is the post's ledger rows when they were read with it. Without `mayRequest` (a
 * batch preparing its next post, decision 0075), NEEDS_REQUEST instead of a live check.
 */
export async function holdBack(
  deps: GateDependencies,
  post: Post,
  knownEntries?: readonly LedgerEntry[],
  mayRequest = true,
): Promise<PostResult | typeof NEEDS_REQUEST | null> {
  if (post.status !== "published") return null;
  const entries = knownEntries ?? (await deps.ledger.entriesForPost(post.id));
  if (entries.length > 0) return null;
  const dueAt = post.published.getTime() + deps.rules.afterPublishMs;
  if (dueAt > deps.now())
    return waiting(deps, post, `Sent automatically from ${new Date(dueAt).toISOString()}`);
  if (!deps.rules.whenLive) return null;
  const known = await deps.liveChecks.get(post.id);
  if (known?.liveAt) return null;
  if (known?.gaveUp) return waiting(deps, post, notLiveNote(post.url, known.lastError));
  if (known?.nextCheckAt && known.nextCheckAt.getTime() > deps.now())
    return waiting(deps, post, waitingNote(post.url, known.lastError));
  if (!mayRequest) return NEEDS_REQUEST;
  const answer = await deps.checkLive(post.url);
  const recorded = await deps.liveChecks.record(post.id, post.url, answer);
  if (recorded.liveAt) return null;
  return waiting(
    deps,
    post,
    recorded.gaveUp ? notLiveNote(post.url, recorded.lastError) : waitingNote(post.url, recorded.lastError),
  );
}

function waitingNote(url: string, lastError: string | null): string {
  return `Waiting for ${url} to be live${lastError ? ` (last answer: ${lastError})` : ""}`;
}

function notLiveNote(url: string, lastError: string | null): string {
  const hours = Math.round(GIVE_UP_AFTER_MS / 3_600_000);
  return `${url} was not live after ${hours} hours${lastError ? ` (last answer: ${lastError})` : ""}; send it from the syndication page`;
}

function waiting(deps: GateDependencies, post: Post, note: string): PostResult {
  return {
    url: post.url,
    status: "unchanged",
    syndication: syndicationUrls(post),
    targets: requestedTargets(post).map((uid) => ({
      uid,
      name: deps.nameOf(uid),
      status: "skipped" as const,
      error: note,
    })),
  };
}
