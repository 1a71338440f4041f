// A post as a batch read it with its page (decision 0080): its status, its properties, the user's own
// words saved on the page and thread choices. A claim made from a page carries it and takes its rows
// only while the post is still so, in the claim's own statement; a post edited, deleted, kept back or
// given other words since is then claimed by nothing and read again. So a batch honours every change
// made while it runs without reading its posts again on a timer, whatever the machine's load.
import type { PreparedClaim } from "./claims.ts";

/** What a page read of a post, besides the post: the texts of the page's own words and the thread choices, by uid. */
export interface ListedWords {
  /** Own words saved on the page (syndication_texts), by uid: not those the post's properties hold. */
  pageTexts: ReadonlyMap<string, string>;
  threadChoices: ReadonlyMap<string, boolean>;
}

/** The post as listed, as the claim compares it (jsonb: key order and number spelling aside). */
export function asListed(
  post: { status: string; properties: Record<string, unknown> },
  { pageTexts, threadChoices }: ListedWords,
): string {
  return JSON.stringify({
    status: post.status,
    properties: post.properties,
    texts: Object.fromEntries(pageTexts),
    threads: Object.fromEntries(threadChoices),
  });
}

/** The same object built from the rows, for `post` (an alias of POST_SOURCE_RELATION) now. */
export function asListedSql(post: string): string {
  return `jsonb_build_object('status', ${post}.status, 'properties', ${post}.properties,
           'texts', (SELECT COALESCE(jsonb_object_agg(s.target_uid, s.text), '{}'::jsonb)
                       FROM syndication_texts AS s WHERE s.post_id = ${post}.id),
           'threads', (SELECT COALESCE(jsonb_object_agg(c.target_uid, c.thread), '{}'::jsonb)
                         FROM syndication_thread_choices AS c WHERE c.post_id = ${post}.id))`;
}

/**
 * A claim made from a page that took none of its targets: the post may have changed since it was
 * listed (or another run holds every target); either way it is read again before anything is said
 * of it. A claim of nothing, or one not made from a page, never is.
 */
export function mayHaveChanged(claim: PreparedClaim, took: ReadonlyMap<string, unknown>): boolean {
  return claim.request.asListed !== undefined && claim.uids.length > 0 && took.size === 0;
}
