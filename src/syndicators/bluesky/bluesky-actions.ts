// The records a copy is made of, and how they are found again: creating a record once under its
// idempotent key, the post a like, repost or reply is about, and this account's likes and reposts
// of a post (to delete the right one).
import { z } from "zod";
import { SyndicationError } from "../../contract/syndication-error.ts";
import type { CopyKind } from "../shared/copy-kind.ts";
import type { BlueskyApi, BlueskySession } from "./bluesky-api.ts";
import { blueskyPostAddress } from "./bluesky-post-url.ts";
import { isSessionError } from "./bluesky-session.ts";
import { recordKeyRange } from "./record-key.ts";

export const postCollection = "app.bsky.feed.post";
export const likeCollection = "app.bsky.feed.like";
export const repostCollection = "app.bsky.feed.repost";
/** The part of a post record that says which thread it belongs to. */
export const replyRootSchema = z.object({ root: z.object({ uri: z.string(), cid: z.string() }) });
/** Where a copy of each kind that is not our post is found: our likes or reposts of that post. */
const actionCollections = {
  like: [likeCollection],
  repost: [repostCollection],
  post: [likeCollection, repostCollection],
};
/** The part of a like or repost record that names the post it is about. */
const subjectSchema = z.object({ subject: z.object({ uri: z.string() }) });

/**
 * Creates a record at `rkey`. A record already at this key is the one a previous attempt made.
 * Today's PDS answers such a repeat with 500 InternalServerError (bluesky-social/atproto#3718), so
 * any refusal other than a session problem is checked against the repository before it is believed.
 */
export async function createOnce(
  api: BlueskyApi,
  session: BlueskySession,
  recordCollection: string,
  rkey: string,
  record: Record<string, unknown>,
): Promise<void> {
  try {
    await api.createRecord(session, recordCollection, rkey, record);
  } catch (error) {
    if (api.aborted || isSessionError(error)) throw error;
    const existing = await api.getRecord(session.did, recordCollection, rkey).catch(() => undefined);
    if (!existing) throw error;
  }
}

/** The Bluesky post a like, repost or reply is about, with the strong reference records need. */
export async function subjectOf(api: BlueskyApi, url: string, what: "like" | "repost" | "reply to") {
  const address = blueskyPostAddress(url);
  if (!address) {
    throw new SyndicationError(
      `Bluesky: can only ${what} Bluesky posts (https://bsky.app/profile/…/post/…), not ${url}; remove Bluesky from this post's targets`,
      { permanent: true },
    );
  }
  const did = address.actor.startsWith("did:") ? address.actor : await api.resolveHandle(address.actor);
  if (!did) {
    throw new SyndicationError(`Bluesky: cannot ${what} ${url}: no account has the handle ${address.actor}`, {
      permanent: true,
    });
  }
  const found = await api.getRecord(did, postCollection, address.rkey);
  if (!found) {
    throw new SyndicationError(`Bluesky: cannot ${what} ${url}: the post does not exist or was deleted`, {
      permanent: true,
    });
  }
  return { ...found, did, rkey: address.rkey };
}

/** The DID an address names its account by (the session's own handle needs no look-up). */
export async function didOf(
  api: BlueskyApi,
  session: BlueskySession,
  actor: string,
  url: string,
): Promise<string> {
  if (actor.startsWith("did:")) return actor;
  if (actor.toLowerCase() === session.handle.toLowerCase()) return session.did;
  const did = await api.resolveHandle(actor);
  if (!did) {
    throw new SyndicationError(`Bluesky: cannot delete ${url}: no account has the handle ${actor}`, {
      permanent: true,
    });
  }
  return did;
}

/**
 * This account's records that could be a copy of `kind` about a post (likes, reposts), among those
 * possekit made: their record keys all lie in recordKeyRange, so the pages before and after it
 * (likes made in an app) are never read.
 */
export async function actionsOn(
  api: BlueskyApi,
  session: BlueskySession,
  postUri: string,
  kind: CopyKind,
): Promise<{ collection: string; rkey: string }[]> {
  const found: { collection: string; rkey: string }[] = [];
  for (const actionCollection of actionCollections[kind]) {
    let cursor: string | undefined = recordKeyRange.after;
    while (cursor) {
      const page = await api.listRecords(session.did, actionCollection, cursor);
      cursor = page.records.length > 0 ? page.cursor : undefined;
      for (const record of page.records) {
        const rkey = record.uri.split("/").pop() ?? "";
        if (rkey > recordKeyRange.last) {
          cursor = undefined;
          break;
        }
        if (subjectSchema.safeParse(record.value).data?.subject.uri === postUri) {
          found.push({ collection: actionCollection, rkey });
        }
      }
    }
  }
  return found;
}
