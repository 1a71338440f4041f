import type { PostResultStatus, RunSummary, TargetResult } from "./types.ts";

/**
 * What happened to a post in this call: `syndicated` when every target now has it and at least
 * one got it now; `partial` when some got it now and others still lack it; `failed` when none got
 * it now and at least one failed; `unchanged` when there was nothing to do (already syndicated,
 * waiting for a retry, or being sent elsewhere).
 */
export function postStatus(targets: readonly TargetResult[]): PostResultStatus {
  const sentNow = targets.filter((target) => target.status === "syndicated").length;
  // A target that is not configured is not waited for: the post lacks nothing it could get.
  const lacking = targets.filter(
    (target) => target.status === "failed" || (target.status === "skipped" && !target.unconfigured),
  ).length;
  const failed = targets.some((target) => target.status === "failed");
  if (sentNow > 0) return lacking === 0 ? "syndicated" : "partial";
  return failed ? "failed" : "unchanged";
}

export function emptySummary(): RunSummary {
  return { posts: 0, syndicated: 0, partial: 0, failed: 0 };
}

/** Counts a post into a run's summary (unchanged posts count only as posts). */
export function countInto(summary: RunSummary, status: PostResultStatus): void {
  summary.posts += 1;
  if (status === "syndicated") summary.syndicated += 1;
  else if (status === "partial") summary.partial += 1;
  else if (status === "failed") summary.failed += 1;
}
