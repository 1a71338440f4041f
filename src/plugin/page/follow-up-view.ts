// One follow-up of a copy (decision 0028) as the post's results page shows it: what happened to the copy
// after the post was edited or deleted, why, and whether the user can retry it.
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { FollowUp, OperationEntry } from "../../syndication/types.ts";
import { httpUrlOrNull } from "./target-view.ts";

/**
 * `refused`: failed in a way a retry cannot fix by itself (401, 403, 422): waits for the user.
 * `waiting`: the service's rate limit (429, Mastodon's deletion limit): goes on by itself when it
 * said (decision 0062).
 */
export type FollowUpKind =
  | "pending"
  | "waiting"
  | "sending"
  | "done"
  | "failed"
  | "refused"
  | "unknown"
  | "cancelled"
  | "kept";

export interface FollowUpView {
  uid: string;
  name: string;
  operation: FollowUp;
  kind: FollowUpKind;
  url: string | null;
  error: string | null;
  nextAttemptAt: Date | null;
  updatedAt: Date;
  /** The user may ask for another try. */
  retryable: boolean;
  /**
   * An edit that cannot change the copy's photos, though the post's photos are no longer those the
   * copy holds (decision 0060): the page says so rather than letting the two differ silently.
   */
  photosKept: boolean;
  /**
   * An edit kept as sent of a copy that is a thread, on a service that can replace it: the user may
   * ask for "Replace the thread" (decision 0062).
   */
  replaceable: boolean;
}

export function followUpView(
  entry: OperationEntry,
  syndicators: readonly SyndicatorPlugin[],
  photosDiffer: (uid: string) => boolean = () => false,
  /** The copy is a thread (its posts are kept). */
  thread = false,
): FollowUpView {
  const syndicator = syndicators.find((s) => s.info.uid === entry.targetUid);
  const kind: FollowUpKind =
    entry.state === "failed" && entry.permanent
      ? "refused"
      : entry.state === "failed" && entry.lastStatus === 429 && entry.nextAttemptAt
        ? "waiting"
        : entry.state;
  return {
    uid: entry.targetUid,
    name: syndicator?.info.name ?? entry.targetUid,
    operation: entry.operation,
    kind,
    url: httpUrlOrNull(entry.url),
    error: ["failed", "waiting", "refused", "unknown"].includes(kind) ? entry.lastError : null,
    nextAttemptAt: kind === "failed" || kind === "waiting" ? entry.nextAttemptAt : null,
    updatedAt: entry.updatedAt,
    retryable: kind === "failed" || kind === "refused" || kind === "unknown",
    photosKept:
      entry.operation === "update" &&
      syndicator?.update !== undefined &&
      syndicator.updatesPhotos !== true &&
      photosDiffer(entry.targetUid),
    replaceable:
      thread && entry.operation === "update" && kind === "kept" && syndicator?.replace !== undefined,
  };
}
