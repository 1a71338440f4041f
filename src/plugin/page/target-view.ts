// One target of one post as the page shows it. The ledger is the truth about what was sent; the
// post's remaining mp-syndicate-to adds the targets nobody has tried yet. A failed row is told
// apart by what happens next: retried on the next run, waiting for its next try, or refused for
// good, so the reader knows whether to act.

import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { Post } from "../../contract/posts.ts";
import { readThreadProgress } from "../../contract/thread-progress.ts";
import { requestedTargets } from "../../syndication/post-targets.ts";
import type { TargetPause } from "../../syndication/runs/target-pauses.ts";
import type { LedgerEntry } from "../../syndication/types.ts";

export type TargetStateKind =
  | "pending"
  | "sending"
  | "syndicated"
  | "failed"
  | "backoff"
  | "ratelimited"
  | "refused"
  | "unknown"
  | "unconfigured"
  | "skipped"
  | "removed"
  | "paused";

export interface TargetView {
  uid: string;
  name: string;
  /** The service's name (e.g. "Mastodon"), when the target says. */
  service: string | null;
  configured: boolean;
  kind: TargetStateKind;
  /** The copy's URL, once syndicated. */
  url: string | null;
  /** The last error, or a note on a resend. */
  error: string | null;
  attempts: number;
  nextAttemptAt: Date | null;
  updatedAt: Date | null;
  /** An id for the target's element on the results page. */
  anchor: string;
  /** kind "paused": the target refused our credentials or rate-limits us, and until when (decision 0048). */
  pause: { kind: TargetPause["kind"]; until: Date | null } | null;
  /** When the user removed the copy ("Undo a copy"); null when they did not. */
  removedAt: Date | null;
  /** A thread sent in part (decision 0055): how many of its posts are out; a retry goes on from `next`. */
  thread: { sent: number; total: number; next: number } | null;
}

/** The kinds of a target that would be sent the post if it were not paused ("ratelimited" says its wait already). */
const WAITING_KINDS: ReadonlySet<TargetStateKind> = new Set(["pending", "failed", "backoff"]);

/** The kinds the user may skip for a post, or say they posted themselves ("for any failure"). */
export const SKIPPABLE_KINDS: ReadonlySet<TargetStateKind> = new Set([
  "failed",
  "backoff",
  "ratelimited",
  "refused",
  "unknown",
  "unconfigured",
]);

/** The kinds after which nothing happens without the user: the page offers a retry for these. */
export const RETRYABLE_KINDS: ReadonlySet<TargetStateKind> = new Set([
  "failed",
  "backoff",
  "ratelimited",
  "refused",
  "unknown",
]);

/**
 * A link the page may show: http(s) only. The URL of a copy is whatever a target answered, and a
 * target is a remote service; anything else (javascript:, data:) is shown as no link at all.
 */
export function httpUrlOrNull(value: string | null | undefined): string | null {
  if (!value || !URL.canParse(value)) return null;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:" ? value : null;
}

function kindOf(entry: LedgerEntry | undefined, configured: boolean, now: Date): TargetStateKind {
  if (!entry) return configured ? "pending" : "unconfigured";
  // The user deleted the copy and keeps the post ("Undo a copy", decision 0054): not skipped, and
  // not waiting. While its deletion is on its way the copy still exists, and reads as syndicated.
  if (entry.removedAt && entry.state !== "syndicated") return "removed";
  if (entry.state === "skipped") return "skipped";
  // A target removed from the configuration is shown as such whatever it last did, unless it has the post.
  if (!configured && entry.state !== "syndicated") return "unconfigured";
  switch (entry.state) {
    case "syndicated":
      return "syndicated";
    case "sending":
      return "sending";
    case "unknown":
      return "unknown";
    case "pending":
      return configured ? "pending" : "unconfigured";
    case "failed":
      if (entry.permanent) return "refused";
      if (!entry.nextAttemptAt || entry.nextAttemptAt <= now) return "failed";
      // The service itself asked us to wait (429): its reset time, not a failure of the post.
      return entry.lastStatus === 429 ? "ratelimited" : "backoff";
  }
}

function anchorOf(uid: string, index: number): string {
  const slug = uid
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40);
  return `target-${index}-${slug || "target"}`;
}

/**
 * Every target the post names or was ever sent to, in the order the targets are configured (then
 * unknown uids by name), so that a row keeps its order while its states change.
 */
export function targetViews(
  post: Post,
  entries: readonly LedgerEntry[],
  syndicators: readonly SyndicatorPlugin[],
  now: Date,
  /** The targets paused now (Syndication.reads.pausedTargets): the post waits for them. */
  paused: ReadonlyMap<string, TargetPause> = new Map(),
): TargetView[] {
  const byUid = new Map(entries.map((entry) => [entry.targetUid, entry]));
  const uids = new Set<string>([...entries.map((entry) => entry.targetUid), ...requestedTargets(post)]);
  const configuredOrder = new Map(syndicators.map((syndicator, index) => [syndicator.info.uid, index]));
  const ordered = [...uids].sort((a, b) => {
    const left = configuredOrder.get(a) ?? Number.MAX_SAFE_INTEGER;
    const right = configuredOrder.get(b) ?? Number.MAX_SAFE_INTEGER;
    return left !== right ? left - right : a.localeCompare(b);
  });
  return ordered.map((uid, index) => {
    const syndicator = syndicators.find((candidate) => candidate.info.uid === uid);
    const entry = byUid.get(uid);
    const stateKind = kindOf(entry, syndicator !== undefined, now);
    const pause = WAITING_KINDS.has(stateKind) ? paused.get(uid) : undefined;
    const kind: TargetStateKind = pause ? "paused" : stateKind;
    return {
      uid,
      name: syndicator?.info.name ?? uid,
      service: syndicator?.info.service?.name ?? null,
      configured: syndicator !== undefined,
      kind,
      url: kind === "syndicated" ? httpUrlOrNull(entry?.url) : null,
      error: kind === "syndicated" ? null : (entry?.lastError ?? null),
      attempts: entry?.attempts ?? 0,
      nextAttemptAt: kind === "backoff" || kind === "ratelimited" ? (entry?.nextAttemptAt ?? null) : null,
      updatedAt: entry?.updatedAt ?? null,
      anchor: anchorOf(uid, index),
      pause: pause ? { kind: pause.kind, until: pause.until ?? pause.checkAt ?? null } : null,
      removedAt: entry?.removedAt ?? null,
      thread: kind === "syndicated" ? null : partialThread(entry?.checkpoint),
    };
  });
}

/** What a thread's checkpoint says of a send that stopped part way. */
function partialThread(checkpoint: string | null | undefined): TargetView["thread"] {
  const progress = readThreadProgress(checkpoint);
  if (!progress || progress.sent.length === 0 || progress.sent.length >= progress.total) return null;
  return { sent: progress.sent.length, total: progress.total, next: progress.sent.length + 1 };
}
