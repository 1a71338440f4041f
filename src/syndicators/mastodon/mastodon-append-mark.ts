// A status an edit appends to a thread is recorded only once its answer comes (decision 0066). Before
// the request, the thread's last post is saved with a mark (ThreadPost.appending: the key, the text,
// when), so that an answer lost is never forgotten: a later edit, whose key is another, or the
// post's deletion first settles the mark. The status is looked for among the answers to that post
// (the account's own, made since the mark, holding the text); when it is not found while Mastodon
// still keeps the key (an hour: PostStatusService's redis.setex(idempotency_key, 3_600, …), modelled
// by dev/sandbox/mastodon-server.ts), the request is made again with the same key, which answers with
// the status made the first time or makes it now. Either way the thread then records it, and the
// edit or deletion that follows treats it as any of its posts. Once the key is gone, a status not
// found was never made.
import { threadPostDigest } from "../../contract/copy-thread.ts";
import { SyndicationError } from "../../contract/syndication-error.ts";
import type { AppendingReply, ThreadPost } from "../../contract/thread-progress.ts";
import type { MastodonApi, MastodonStatus } from "./mastodon-api.ts";
import { statusUrl } from "./mastodon-api.ts";
import { isCopy } from "./mastodon-copy-lookup.ts";

/**
 * How long after a mark the same key still finds its status: Mastodon's hour, less room for the
 * clocks of possekit's instances and the request's own time.
 */
export const appendKeyKeptMs = 50 * 60 * 1000;

/** What a status asked for again is sent with, besides its text, key and parent. */
export interface AppendFields {
  visibility: string;
  language?: string | undefined;
  contentType?: string | undefined;
}

/** The thread with its last post marked: `text` is being appended with `key`. */
export function markAppending(
  posts: readonly ThreadPost[],
  key: string,
  text: string,
  now: number,
): ThreadPost[] {
  const marked = [...posts];
  const last = marked.at(-1);
  if (last)
    marked[marked.length - 1] = { ...last, appending: { key, text, at: new Date(now).toISOString() } };
  return marked;
}

/** The post without its mark. */
export function unmarked(post: ThreadPost): ThreadPost {
  const { appending: _settled, ...rest } = post;
  return rest;
}

/**
 * The thread with its mark settled: the status it stands for recorded after the marked post, when
 * there is one. Undefined when no post is marked (nothing to save).
 */
export async function settleAppending(
  api: MastodonApi,
  posts: readonly ThreadPost[],
  fields: AppendFields,
  now: () => number = Date.now,
): Promise<ThreadPost[] | undefined> {
  const at = posts.findIndex((post) => post.appending);
  const marked = posts[at];
  if (!marked?.appending) return undefined;
  const mark = marked.appending;
  const known = new Set(posts.map((post) => post.id));
  const status =
    (await findAppended(api, marked.id, mark, known)) ??
    (now() - Date.parse(mark.at) < appendKeyKeptMs
      ? await askAgain(api, marked.id, mark, fields)
      : undefined);
  const settled = posts.map(unmarked);
  if (status && !known.has(status.id))
    settled.splice(at + 1, 0, { id: status.id, url: statusUrl(status), digest: threadPostDigest(mark.text) });
  return settled;
}

/** The account's own answer to `parentId`, made since the mark and holding its text, not yet recorded. */
async function findAppended(
  api: MastodonApi,
  parentId: string,
  mark: AppendingReply,
  known: ReadonlySet<string>,
): Promise<MastodonStatus | undefined> {
  const { id: own } = await api.verifyCredentials();
  let answers: MastodonStatus[];
  try {
    answers = await api.descendants(parentId);
  } catch (error) {
    // The post it answers is gone: its answers cannot be listed, and the key is the one way left.
    if (error instanceof SyndicationError && error.status === 404) return undefined;
    throw error;
  }
  return answers.find(
    (status) =>
      status.in_reply_to_id === parentId &&
      status.account?.id === own &&
      !known.has(status.id) &&
      isCopy(status, mark.text, Date.parse(mark.at)),
  );
}

/**
 * The same request with the same key: the status the lost attempt made, or a new one. A 404 (the
 * post it answers is gone, or so is the status the key names) or a 422 (refused) made nothing.
 */
async function askAgain(
  api: MastodonApi,
  parentId: string,
  mark: AppendingReply,
  fields: AppendFields,
): Promise<MastodonStatus | undefined> {
  try {
    return await api.postStatus({
      status: mark.text,
      mediaIds: [],
      idempotencyKey: mark.key,
      visibility: fields.visibility,
      inReplyToId: parentId,
      ...(fields.language ? { language: fields.language } : {}),
      ...(fields.contentType ? { contentType: fields.contentType } : {}),
    });
  } catch (error) {
    if (error instanceof SyndicationError && (error.status === 404 || error.status === 422)) return undefined;
    throw error;
  }
}
