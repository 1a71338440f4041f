// A post as one row of the page (and the head of its results page): what it is called, when it was
// published, where it lives, and the state of each of its targets.

import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { Post } from "../../contract/posts.ts";
import { visibilityOf } from "../../contract/visibility.ts";
import { requestedTargets } from "../../syndication/post-targets.ts";
import type { LiveCheck, TargetPause } from "../../syndication/syndication.ts";
import type { LedgerEntry } from "../../syndication/types.ts";
import { type OriginView, originView } from "./post-origin.ts";
import { postTitle } from "./post-title.ts";
import { type TargetView, targetViews } from "./target-view.ts";

/** What the row says at a glance: every target reached, some waiting for a run, or some needing the user. */
export type RowOverall = "done" | "waiting" | "attention";

export interface PostRowView {
  id: string;
  url: string;
  title: string | null;
  titleIsExcerpt: boolean;
  published: Date;
  /** Where a post from elsewhere comes from (a feed, a remote Micropub server); null for the site's own. */
  origin: OriginView | null;
  /** The post still names a target: its Syndicate button is enabled. */
  awaiting: boolean;
  overall: RowOverall;
  targets: TargetView[];
  detailsHref: string;
  /** A new post the scheduler holds back until its URL answers (schedule.whenLive). */
  live: LiveWait | null;
}

export interface LiveWait {
  url: string;
  /** Whole minutes since the last check. */
  minutesAgo: number;
  /** Not live a day after the first check: it waits for the user. */
  gaveUp: boolean;
}

function liveWait(check: LiveCheck | undefined, entries: readonly LedgerEntry[], now: Date): LiveWait | null {
  if (!check || check.liveAt || entries.length > 0) return null;
  const minutesAgo = Math.max(0, Math.floor((now.getTime() - check.checkedAt.getTime()) / 60_000));
  return { url: check.url, minutesAgo, gaveUp: check.gaveUp };
}

const NEEDS_USER = new Set(["failed", "backoff", "ratelimited", "refused", "unknown"]);
/** Nothing more will happen for these, and nothing needs to: the post does not wait for them. */
const SETTLED = new Set(["syndicated", "skipped", "removed", "unconfigured"]);

export function postRow(
  post: Post,
  entries: readonly LedgerEntry[],
  syndicators: readonly SyndicatorPlugin[],
  mountPath: string,
  /** The core's time (Syndication.reads.now()), which the ledger's times are written by. */
  now: Date,
  check?: LiveCheck,
  paused?: ReadonlyMap<string, TargetPause>,
): PostRowView {
  const title = postTitle(post);
  const targets = targetViews(post, entries, syndicators, now, paused);
  const awaiting =
    post.status === "published" &&
    !post.deleted &&
    visibilityOf(post.properties) === "public" &&
    requestedTargets(post).length > 0;
  const overall: RowOverall = targets.some((target) => NEEDS_USER.has(target.kind))
    ? "attention"
    : targets.every((target) => SETTLED.has(target.kind))
      ? "done"
      : "waiting";
  return {
    id: post.id,
    url: post.url,
    title: title.text,
    titleIsExcerpt: title.excerpt,
    published: post.published,
    origin: originView(post.origin, mountPath),
    awaiting,
    overall,
    targets,
    detailsHref: `${mountPath}/posts/${encodeURIComponent(post.id)}`,
    // A post that waits only for paused targets waits for them, not for its page to go live.
    live: awaiting && !waitsOnlyForPaused(targets) ? liveWait(check, entries, now) : null,
  };
}

/** The kinds of a target the post still waits for; of those, the ones that wait for their target. */
const WAITING = new Set(["pending", "backoff", "ratelimited", "paused"]);
const HELD_BY_TARGET = new Set(["ratelimited", "paused"]);

function waitsOnlyForPaused(targets: readonly TargetView[]): boolean {
  const waiting = targets.filter((target) => WAITING.has(target.kind));
  return waiting.length > 0 && waiting.every((target) => HELD_BY_TARGET.has(target.kind));
}

/** Rows for many posts with one ledger query. */
export async function postRows(
  posts: readonly Post[],
  summaryForPosts: (ids: readonly string[]) => Promise<Map<string, LedgerEntry[]>>,
  syndicators: readonly SyndicatorPlugin[],
  mountPath: string,
  now: Date,
  liveChecksForPosts?: (ids: readonly string[]) => Promise<Map<string, LiveCheck>>,
  pausedTargets?: () => Promise<Map<string, TargetPause>>,
): Promise<PostRowView[]> {
  const ids = posts.map((post) => post.id);
  const [entries, checks, paused] = await Promise.all([
    summaryForPosts(ids),
    liveChecksForPosts ? liveChecksForPosts(ids) : new Map<string, LiveCheck>(),
    pausedTargets ? pausedTargets() : new Map<string, TargetPause>(),
  ]);
  return posts.map((post) =>
    postRow(post, entries.get(post.id) ?? [], syndicators, mountPath, now, checks.get(post.id), paused),
  );
}
