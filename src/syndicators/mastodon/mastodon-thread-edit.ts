// Editing and deleting a copy that is a thread on Mastodon (decision 0062). The new text is split again;
// each post whose text changed is edited in place (PUT), posts the new split adds are appended to
// the last one (each with an Idempotency-Key from the edit's key and its place, so a retry after a
// lost answer gets the status made the first time), and posts it no longer has are deleted, last
// first. A post that holds what it should gets no request. After each step the thread's posts are
// saved (CopyChangeOptions.saveThread), so a retry goes on from there and never does a step twice.
// An appended status is marked as under way before its request, and a mark left by a lost answer is
// settled before anything else, by this edit or any later one (decision 0066).
// Mastodon limits deletions (30 per account in 30 minutes, throttle_api_delete in
// config/initializers/rack_attack.rb): its 429 says when the window ends, and the deletion waits
// for it, what is deleted so far saved.
import { threadPostDigest } from "../../contract/copy-thread.ts";
import { SyndicationError } from "../../contract/syndication-error.ts";
import type { ThreadPost } from "../../contract/thread-progress.ts";
import type { MastodonApi, MastodonStatus } from "./mastodon-api.ts";
import { statusUrl } from "./mastodon-api.ts";
import { type AppendFields, markAppending, settleAppending, unmarked } from "./mastodon-append-mark.ts";
import { threadPostKey } from "./mastodon-thread.ts";

export interface ThreadEdit {
  /** The thread as it is on Mastodon, in order (the first is the copy's own status). */
  current: readonly ThreadPost[];
  /** What it is to hold: every post's text, in order (a single post is a thread of one). */
  posts: readonly string[];
  /** The first post's photos' alt text, part of what it holds. */
  alts: readonly string[];
  /** The edit's Idempotency-Key (one per change of the post): appended posts' keys derive from it. */
  idempotencyKey: string;
  visibility: string;
  language?: string | undefined;
  contentType?: string | undefined;
  /** Edits the first post, keeping its media with the post's alt text (as a single status is edited). */
  editFirst: (id: string, text: string) => Promise<void>;
  save: (posts: ThreadPost[]) => Promise<void>;
  /** "Mastodon", "Akkoma", …: starts every error message. */
  label: string;
}

/** Brings the thread to what the post says now, step by step, each saved before the next. */
export async function editMastodonThread(api: MastodonApi, edit: ThreadEdit): Promise<void> {
  const kept = await settled(api, edit.current, edit, edit.save);
  const digestAt = (index: number) => threadPostDigest(edit.posts[index] ?? "", index === 0 ? edit.alts : []);
  for (let index = 0; index < Math.min(kept.length, edit.posts.length); index++) {
    const post = kept[index];
    const digest = digestAt(index);
    if (!post || post.digest === digest) continue;
    const text = edit.posts[index] ?? "";
    if (index === 0) await edit.editFirst(post.id, text);
    else
      await api.editStatus(post.id, {
        status: text,
        media: [],
        ...(edit.language ? { language: edit.language } : {}),
        ...(edit.contentType ? { contentType: edit.contentType } : {}),
      });
    kept[index] = { ...post, digest };
    await edit.save(kept);
  }
  for (let index = kept.length; index < edit.posts.length; index++) {
    const previous = kept.at(-1);
    const text = edit.posts[index] ?? "";
    const idempotencyKey = threadPostKey(edit.idempotencyKey, index);
    // Saved before the request: should its answer be lost, whatever edits next finds the status.
    await edit.save(markAppending(kept, idempotencyKey, text, Date.now()));
    let created: MastodonStatus;
    try {
      created = await api.postStatus({
        status: text,
        mediaIds: [],
        idempotencyKey,
        visibility: edit.visibility,
        ...(edit.language ? { language: edit.language } : {}),
        ...(edit.contentType ? { contentType: edit.contentType } : {}),
        ...(previous ? { inReplyToId: previous.id } : {}),
      });
    } catch (error) {
      // An answer that refuses (4xx) says nothing was made: the mark goes, so that no later edit
      // asks for the status again. A lost answer or a server error keeps it.
      if (isRefusal(error)) await edit.save(kept);
      throw error;
    }
    kept.push({ id: created.id, url: statusUrl(created), digest: digestAt(index) });
    await edit.save(kept);
  }
  await deleteFromTheEnd(api, kept, edit.posts.length, edit.save, edit.label);
}

function isRefusal(error: unknown): boolean {
  return (
    error instanceof SyndicationError &&
    !error.uncertain &&
    error.status !== undefined &&
    error.status >= 400 &&
    error.status < 500
  );
}

/** Deletes every post of the thread, the last first, each saved as gone before the next. */
export async function deleteMastodonThread(
  api: MastodonApi,
  thread: readonly ThreadPost[],
  fields: AppendFields,
  save: (posts: ThreadPost[]) => Promise<void>,
  label: string,
): Promise<void> {
  await deleteFromTheEnd(api, await settled(api, thread, fields, save), 0, save, label);
}

/**
 * The thread with a status an earlier edit was appending recorded, if it was made (decision 0066);
 * saved when that changed it. Never a mark left in what is returned.
 */
async function settled(
  api: MastodonApi,
  thread: readonly ThreadPost[],
  fields: AppendFields,
  save: (posts: ThreadPost[]) => Promise<void>,
): Promise<ThreadPost[]> {
  const posts = await settleAppending(api, thread, fields);
  if (!posts) return thread.map(unmarked);
  await save(posts);
  return posts;
}

/** Deletes the posts past the first `keep`, the last first; 404 counts as deleted. */
async function deleteFromTheEnd(
  api: MastodonApi,
  kept: ThreadPost[],
  keep: number,
  save: (posts: ThreadPost[]) => Promise<void>,
  label: string,
): Promise<void> {
  const toDelete = kept.length - keep;
  while (kept.length > keep) {
    const last = kept.at(-1);
    if (!last) break;
    try {
      await api.deleteStatus(last.id);
    } catch (error) {
      throw waitingForDeletions(error, toDelete - (kept.length - keep), toDelete, label);
    }
    kept.pop();
    await save(kept);
  }
}

/**
 * The deletion limit reached: the same refusal, saying how far the deletion got and that it goes on
 * when the instance's window ends (the 429's X-RateLimit-Reset, read into retryAfterSeconds).
 */
function waitingForDeletions(error: unknown, done: number, total: number, label: string): unknown {
  if (!(error instanceof SyndicationError) || error.status !== 429) return error;
  const wait = error.retryAfterSeconds;
  const when = wait === undefined ? "later" : `at ${new Date(Date.now() + wait * 1000).toISOString()}`;
  return new SyndicationError(
    `${label}: waiting for the instance's deletion limit: ${done} of ${total} statuses of the thread deleted; the rest go ${when}`,
    {
      permanent: false,
      status: 429,
      ...(wait === undefined ? {} : { retryAfterSeconds: wait }),
      cause: error,
    },
  );
}

/**
 * How long after a status the next post of a thread sent by possekit can have been made: a thread
 * goes out status after status, and a retry of a partial one comes within the backoff's first
 * steps. An answer of the account's own made later is the user's, never taken for the thread's.
 */
export const threadGapMs = 15 * 60 * 1000;

/**
 * A thread sent before its posts were kept (decision 0062): its statuses are found as the chain of
 * replies by the same account that starts at the copy, through GET /api/v1/statuses/:id/context,
 * each made within threadGapMs of the one before. Where the account answered one of its statuses
 * twice, the earlier answer is the thread's. What each holds is not known, so an edit sends every
 * one of them.
 */
export async function findMastodonThread(api: MastodonApi, firstId: string): Promise<ThreadPost[]> {
  const first = await api.getStatus(firstId);
  const chain: ThreadPost[] = [{ id: first.id, url: statusUrl(first) }];
  const account = first.account?.id;
  if (!account) return chain;
  const descendants = await api.descendants(firstId);
  let parent = first;
  for (;;) {
    const madeAfter = Date.parse(parent.created_at ?? "");
    const next = descendants
      .filter(
        (status) =>
          status.in_reply_to_id === parent.id &&
          status.account?.id === account &&
          Date.parse(status.created_at ?? "") - madeAfter <= threadGapMs,
      )
      .sort((a, b) => (a.created_at ?? "").localeCompare(b.created_at ?? "") || compareIds(a.id, b.id))[0];
    if (!next) return chain;
    chain.push({ id: next.id, url: statusUrl(next) });
    parent = next;
  }
}

/** Mastodon's ids are numbers too long for a double; shorter is older. */
function compareIds(a: string, b: string): number {
  return a.length - b.length || a.localeCompare(b);
}
