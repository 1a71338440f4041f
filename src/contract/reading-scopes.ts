// What a token may read (decision 0045; docs/security.md has the table). Micropub and IndieAuth give
// `media` (upload files) and `draft` (create drafts) as scopes to write with, nothing more; reading
// the posts, drafts among them, is what an editing client does, so it needs create, update or
// delete. A signed-in session reads everything.
import type { Authenticated } from "./auth.ts";

/** Scopes any one of which lets a token read posts, drafts included, and the syndication pages. */
export const READING_SCOPES = ["create", "update", "delete"] as const;

/**
 * Whether the credential may read posts.
 *
 * @example mayReadPosts({ method: "bearer", scope: ["media"], ... }) // false
 */
export function mayReadPosts(auth: Authenticated | undefined): boolean {
  if (!auth) return false;
  return auth.method === "session" || READING_SCOPES.some((scope) => auth.scope.includes(scope));
}
