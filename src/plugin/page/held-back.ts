// Posts held back by their target (issue 32): a target that refuses our credentials or asked us to
// slow down (429) takes no post until it can, so a post that waits for it is neither "Pending" nor
// waiting to be live: the row says which target holds it, why, and until when. The target's state
// is the core's (its health, and the pauses it keeps); the page only words it.
import type { TargetStatus } from "../../syndication/target-checks.ts";
import type { PostRowView } from "./post-row.ts";

export interface Hold {
  reason: "refused" | "ratelimited";
  /** When the target takes posts again; null: once its check succeeds. */
  until: Date | null;
}

/** The targets that take no post now, by uid. */
export function holdsOf(targets: readonly TargetStatus[]): Map<string, Hold> {
  const holds = new Map<string, Hold>();
  for (const target of targets) {
    if (target.state === "refused") holds.set(target.uid, { reason: "refused", until: null });
    else if (target.state === "rate_limited")
      holds.set(target.uid, { reason: "ratelimited", until: target.rateLimitedUntil });
  }
  return holds;
}

/**
 * Marks each target of the row that was not tried yet and waits only because its target holds it
 * ("pending") as held, and drops the live-check line when every target the post waits for is held
 * or rate limited: the post waits for them, not for its page. A target that answered this post's
 * send with 429 keeps its own "Rate limited" state and reset time.
 */
export function markHeld<Row extends PostRowView>(row: Row, holds: ReadonlyMap<string, Hold>): Row {
  if (holds.size === 0) return row;
  let waiting = 0;
  let held = 0;
  const targets = row.targets.map((target) => {
    if (target.kind === "pending" || target.kind === "ratelimited" || target.kind === "backoff") waiting++;
    const hold = holds.get(target.uid);
    if (target.kind === "ratelimited" && hold) held++;
    if (!hold || target.kind !== "pending") return target;
    held++;
    return { ...target, kind: "held" as const, hold };
  });
  const live = row.live && held > 0 && held === waiting ? null : row.live;
  return { ...row, targets, live };
}
