// A thread on Bluesky (decision 0055), written in one commit: every record is built first, each with a
// record key from the send's idempotency key and its place in the thread, and each reply names its
// parent and the thread's root by CIDs computed here (record-cid.ts); createdAt one millisecond
// apart, so that no client can show them out of order. com.atproto.repo.applyWrites then makes them
// all or none, and the CIDs the PDS answers are checked against ours: a reply that named another
// CID than its parent's would hang off nothing. A repeat finds the thread there and makes no other.
import { threadPostDigest } from "../../contract/copy-thread.ts";
import { SyndicationError } from "../../contract/syndication-error.ts";
import type { ThreadPost } from "../../contract/thread-progress.ts";
import { postCollection } from "./bluesky-actions.ts";
import type { BlueskyApi, BlueskySession, RecordRef } from "./bluesky-api.ts";
import { blueskyPostPage } from "./bluesky-post-url.ts";
import { isSessionError } from "./bluesky-session.ts";
import { recordCid } from "./record-cid.ts";
import { recordKeyFor } from "./record-key.ts";

export interface BuiltPost {
  rkey: string;
  value: Record<string, unknown>;
  uri: string;
  cid: string;
}

export interface ThreadBuild {
  did: string;
  idempotencyKey: string;
  /** Each post's record without `reply` and `createdAt`: its text, facets, langs, embed. */
  bodies: Record<string, unknown>[];
  /** When the post is itself a reply: the thread it joins. */
  replyTo?: { root: RecordRef; parent: RecordRef } | undefined;
  /** The first post's createdAt; each next one is a millisecond later. */
  createdAt: Date;
}

/** The record key of the post at `index` (0-based): the first is the one a single post would have. */
export const threadRecordKey = (idempotencyKey: string, index: number) =>
  recordKeyFor(index === 0 ? idempotencyKey : `${idempotencyKey}:${index + 1}`);

export async function buildThread(build: ThreadBuild): Promise<BuiltPost[]> {
  const built: BuiltPost[] = [];
  for (const [index, body] of build.bodies.entries()) {
    const rkey = threadRecordKey(build.idempotencyKey, index);
    const previous = built.at(-1);
    const root = built[0] ? { uri: built[0].uri, cid: built[0].cid } : undefined;
    const reply = previous
      ? { root: build.replyTo?.root ?? root, parent: { uri: previous.uri, cid: previous.cid } }
      : build.replyTo;
    const value: Record<string, unknown> = {
      ...body,
      $type: postCollection,
      createdAt: new Date(build.createdAt.getTime() + index).toISOString(),
      ...(reply ? { reply } : {}),
    };
    const uri = `at://${build.did}/${postCollection}/${rkey}`;
    built.push({ rkey, value, uri, cid: await recordCid(value) });
  }
  return built;
}

/** Writes the thread (or finds it written by an earlier attempt); the page of its first post. */
export function writeThread(api: BlueskyApi, session: BlueskySession, posts: BuiltPost[]): Promise<string> {
  return commitThread(api, session, [], posts);
}

/**
 * Replaces a thread (decision 0062: "Replace the thread"): the old posts still there deleted and the
 * new ones created in the same commit, all or none. The new posts' record keys come from the
 * replacement's own key, so a repeat after a lost answer finds the new thread and makes no other.
 */
export async function replaceThread(
  api: BlueskyApi,
  session: BlueskySession,
  old: readonly ThreadPost[],
  posts: BuiltPost[],
): Promise<string> {
  const [first] = posts;
  if (!first) throw new Error("a thread has at least one post");
  if (await api.getRecord(session.did, postCollection, first.rkey))
    return blueskyPostPage(session.did, first.rkey);
  return commitThread(api, session, await recordsStillThere(api, session, old), posts);
}

/**
 * One commit: `deletes` (record keys of posts), then the thread's records; the CIDs the PDS
 * answers checked against ours. The page of the thread's first post.
 */
async function commitThread(
  api: BlueskyApi,
  session: BlueskySession,
  deletes: readonly string[],
  posts: BuiltPost[],
): Promise<string> {
  const [first] = posts;
  if (!first) throw new Error("a thread has at least one post");
  let answered: { cid?: string | undefined }[];
  try {
    answered = await api.writeRecords(
      session,
      postCollection,
      deletes,
      posts.map(({ rkey, value }) => ({ rkey, value })),
    );
  } catch (error) {
    // A taken record key fails the whole commit (today's PDS answers 500): an earlier attempt wrote
    // the thread, whose answer was lost. The commit was all or nothing, so its first post says.
    if (api.aborted || isSessionError(error)) throw error;
    const existing = await api.getRecord(session.did, postCollection, first.rkey).catch(() => undefined);
    if (!existing) throw error;
    return blueskyPostPage(session.did, first.rkey);
  }
  posts.forEach((post, index) => {
    const cid = answered[deletes.length + index]?.cid;
    if (cid !== undefined && cid !== post.cid) {
      throw new SyndicationError(
        `Bluesky: the PDS made post ${index + 1} of the thread with CID ${cid}, not ${post.cid} as computed here, so the replies to it may name the wrong post; check the thread on Bluesky`,
        { permanent: true },
      );
    }
  });
  return blueskyPostPage(session.did, first.rkey);
}

/** The thread's posts as the host keeps them (decision 0062): at:// URI, page, what each holds. */
export function threadPosts(did: string, posts: readonly BuiltPost[]): ThreadPost[] {
  return posts.map((post) => ({
    id: post.uri,
    url: blueskyPostPage(did, post.rkey),
    digest: threadPostDigest(typeof post.value.text === "string" ? post.value.text : ""),
  }));
}

/**
 * Deletes every post of a thread of the session's own repository in one commit (decision 0062):
 * those still there, found first, since a commit that names a record not there fails whole (a
 * retry after a lost answer, or a post the user deleted in an app). Nothing left: nothing to do.
 */
export async function deleteThread(
  api: BlueskyApi,
  session: BlueskySession,
  posts: readonly ThreadPost[],
): Promise<void> {
  const rkeys = await recordsStillThere(api, session, posts);
  if (rkeys.length > 0) await api.writeRecords(session, postCollection, rkeys, []);
}

/** The most posts a thread sent before its posts were kept is searched for (decision 0064). */
const mostThreadPosts = 100;

/**
 * A thread sent before its posts were kept (decision 0064): its first record's key is the one
 * `sentKey` gives at place 0, and each next post's the one it gives at its place. Those still in the
 * session's own repository are found in order, each taken only while it replies to the one before
 * (a record at such a key that is no reply in the chain is not the thread's). The record keys found;
 * the first's even when it is gone, so that its deletion is asked for as before. Empty when the copy
 * was not sent with `sentKey`.
 */
export async function findThreadSentBefore(
  api: BlueskyApi,
  session: BlueskySession,
  firstKey: string,
  sentKey: string,
): Promise<string[]> {
  if (threadRecordKey(sentKey, 0) !== firstKey) return [];
  const found = [firstKey];
  let parentUri = `at://${session.did}/${postCollection}/${firstKey}`;
  for (let index = 1; index < mostThreadPosts; index++) {
    const rkey = threadRecordKey(sentKey, index);
    const record = await api.getRecord(session.did, postCollection, rkey);
    if (!record || replyParentUri(record.value) !== parentUri) break;
    found.push(rkey);
    parentUri = `at://${session.did}/${postCollection}/${rkey}`;
  }
  return found;
}

/**
 * Deletes the records a thread sent before its posts were kept still has (decision 0064), in one
 * commit: the first checked too, since a commit naming a record not there fails whole.
 */
export async function deleteRecords(api: BlueskyApi, session: BlueskySession, rkeys: readonly string[]) {
  const there: string[] = [];
  for (const rkey of rkeys) if (await api.getRecord(session.did, postCollection, rkey)) there.push(rkey);
  if (there.length > 0) await api.writeRecords(session, postCollection, there, []);
}

/** The at:// URI of the post a record replies to, if it is a reply. */
function replyParentUri(value: Record<string, unknown> | undefined): string | undefined {
  const reply = value?.reply;
  if (typeof reply !== "object" || reply === null || !("parent" in reply)) return undefined;
  const parent = reply.parent;
  if (typeof parent !== "object" || parent === null || !("uri" in parent)) return undefined;
  return typeof parent.uri === "string" ? parent.uri : undefined;
}

/** The record keys of the posts of the session's own repository that are still there. */
async function recordsStillThere(
  api: BlueskyApi,
  session: BlueskySession,
  posts: readonly ThreadPost[],
): Promise<string[]> {
  const rkeys: string[] = [];
  for (const post of posts) {
    const rkey = ownPostKey(session.did, post.id);
    if (rkey && (await api.getRecord(session.did, postCollection, rkey))) rkeys.push(rkey);
  }
  return rkeys;
}

/** The record key of a post of the session's own repository, from its at:// URI; else undefined. */
function ownPostKey(did: string, uri: string): string | undefined {
  const prefix = `at://${did}/${postCollection}/`;
  return uri.startsWith(prefix) ? uri.slice(prefix.length) || undefined : undefined;
}
