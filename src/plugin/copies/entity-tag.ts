// A strong entity tag of a JSON answer and the If-None-Match test (RFC 9110 §8.8.3, §13.1.2), so
// that a site generator fetching copies.json at every build gets a 304 while nothing changed.
import { createHash } from "node:crypto";

/** A strong tag: the SHA-256 of the exact bytes sent, so equal tags mean equal bodies. */
export function strongEntityTag(body: string): string {
  return `"${createHash("sha256").update(body).digest("base64url")}"`;
}

/**
 * Whether If-None-Match names `tag`. The comparison is weak, as the RFC asks for this header: a
 * cache that kept our tag as W/"…" still matches.
 */
export function noneMatchHolds(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header
    .split(",")
    .map((item) => item.trim().replace(/^W\//, ""))
    .some((item) => item === tag);
}
