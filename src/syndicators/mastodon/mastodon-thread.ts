// Sending a thread to Mastodon (decision 0055), which has no way to write several statuses at once: one
// status after the other, each a reply to the one before, each with an Idempotency-Key of its own
// (the send's key and the post's place in the thread). After each, its id is kept as the send's
// checkpoint, so a retry goes on from the first status not yet recorded: never from the start
// (which would post the thread twice), never past a gap. A status whose answer was lost is sent
// again with the same key, and Mastodon answers with the one it made.
import { threadPostDigest } from "../../contract/copy-thread.ts";
import { readThreadProgress, writeThreadProgress } from "../../contract/thread-progress.ts";
import type { MastodonApi } from "./mastodon-api.ts";
import { statusUrl } from "./mastodon-api.ts";

export interface ThreadSend {
  posts: string[];
  /** The send's Idempotency-Key; each status gets it with its place in the thread. */
  idempotencyKey: string;
  /** The status the thread answers (a reply post), if any. */
  inReplyToId?: string | undefined;
  visibility: string;
  language?: string | undefined;
  /** Akkoma's and Pleroma's content type for plain text, as a single status gets it. */
  contentType?: string | undefined;
  /** The first status's photos' alt text, part of what it holds (its digest). */
  alts: readonly string[];
  /** The photos, uploaded for the first status only, and only when it is still to be sent. */
  uploadMedia: () => Promise<string[]>;
  resumeFrom?: string | undefined;
  checkpoint?: ((value: string) => Promise<void>) | undefined;
}

/** The Idempotency-Key of the status at `index` (0-based). */
export const threadPostKey = (idempotencyKey: string, index: number) => `${idempotencyKey}:${index + 1}`;

/** Sends what is left of the thread; the URL of its first status. */
export async function sendMastodonThread(api: MastodonApi, send: ThreadSend): Promise<string> {
  const total = send.posts.length;
  const sent = [...(readThreadProgress(send.resumeFrom)?.sent ?? [])].slice(0, total);
  for (let index = sent.length; index < total; index++) {
    const previous = sent.at(-1)?.id ?? send.inReplyToId;
    const created = await api.postStatus({
      status: send.posts[index] ?? "",
      mediaIds: index === 0 ? await send.uploadMedia() : [],
      idempotencyKey: threadPostKey(send.idempotencyKey, index),
      visibility: send.visibility,
      ...(send.language ? { language: send.language } : {}),
      ...(send.contentType ? { contentType: send.contentType } : {}),
      ...(previous ? { inReplyToId: previous } : {}),
    });
    const text = send.posts[index] ?? "";
    sent.push({
      id: created.id,
      url: statusUrl(created),
      digest: threadPostDigest(text, index === 0 ? send.alts : []),
    });
    await send.checkpoint?.(writeThreadProgress({ total, sent }));
  }
  const first = sent[0];
  if (!first) throw new Error("a thread has at least one post");
  return first.url;
}
