// Reads what a stored post asks for and already has. Posts are JF2 (src/contract/posts.ts):
// both properties are arrays of strings, but a post written by hand or an older server may hold a
// lone string, so both shapes are read; anything else is ignored.
import { z } from "zod";
import type { Post } from "../contract/posts.ts";

const strings = z.union([z.string().transform((value) => [value]), z.array(z.unknown())]);

function stringList(value: unknown): string[] {
  const parsed = strings.safeParse(value);
  if (!parsed.success) return [];
  const unique = new Set<string>();
  for (const item of parsed.data) if (typeof item === "string" && item !== "") unique.add(item);
  return [...unique];
}

/** The uids in `mp-syndicate-to`, in order, without duplicates, as written: matched exactly, never by prefix. */
export function requestedTargets(post: Post): string[] {
  return stringList(post.properties["mp-syndicate-to"]);
}

/** The URLs already in the post's `syndication`. */
export function syndicationUrls(post: Post): string[] {
  return stringList(post.properties.syndication);
}
