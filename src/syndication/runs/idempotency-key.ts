import { createHash } from "node:crypto";

/**
 * The key a target may use to recognise a repeated send of the same post. Derived from the post's
 * URL and the target's uid, so it is the same on every instance and every retry; the ledger stores
 * it when the row is created and reuses it, so that a later change of URL does not change it.
 */
export function idempotencyKey(postUrl: string, targetUid: string): string {
  return createHash("sha256").update(`${postUrl}\n${targetUid}`).digest("hex").slice(0, 32);
}
