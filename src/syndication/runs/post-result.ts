import type { PostResult, PostResultStatus, RunSummary, TargetResult } from "../types.ts";

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
  return { posts: 0, syndicated: 0, partial: 0, failed: 0, skipped: 0 };
}

/**
 * Counts a post into a run's summary. An unchanged post counts as skipped when a target still
 * lacks it (waiting or refused); one that every target already had counts only as a post.
 */
export function countInto(
  summary: RunSummary,
  result: Pick<PostResult, "status" | "targets" | "followUp">,
): void {
  summary.posts += 1;
  // Copies that followed their post are counted apart from sends; what failed or waits, as any.
  if (result.followUp && result.status === "syndicated") {
    summary.followed = (summary.followed ?? 0) + 1;
    return;
  }
  if (result.status === "syndicated") summary.syndicated += 1;
  else if (result.status === "partial") summary.partial += 1;
  else if (result.status === "failed") summary.failed += 1;
  else if (result.targets.some((target) => target.status === "skipped")) summary.skipped += 1;
}

/** Something is left for later or for the user: the summary is not shown as a success. */
export function needsAttention(summary: RunSummary): boolean {
  return summary.failed > 0 || summary.partial > 0 || summary.skipped > 0;
}
