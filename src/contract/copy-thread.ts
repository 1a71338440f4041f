// The posts of a copy sent as a thread (decision 0062), kept by the host with the copy after the send
// and handed to the syndicator's update and delete (CopyChangeOptions.threadPosts), which save them again
// after each step. Stored as JSON: read back through this schema, and anything else is no thread.
import { createHash } from "node:crypto";
import { z } from "zod";
import { type ThreadPost, threadPostSchema } from "./thread-progress.ts";

const copyThreadSchema = z.array(threadPostSchema).min(1);

/** A stored thread read back; undefined for nothing, or for anything that is not one. */
export function readCopyThread(value: unknown): ThreadPost[] | undefined {
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  const result = copyThreadSchema.safeParse(parsed);
  return result.success ? result.data : undefined;
}

/**
 * What a post of a thread holds, as a short digest: its text and, for the first, its photos' alt
 * text. Two posts with the same digest need no edit.
 */
export function threadPostDigest(text: string, alts: readonly string[] = []): string {
  return createHash("sha256")
    .update(JSON.stringify([text, ...alts]))
    .digest("base64url")
    .slice(0, 22);
}
