// The user's own words for one post on one target (decision 0026): saved from the preview on the page,
// or given by a Micropub client in the post property `mp-syndicate-text` (an object keyed by target
// uid). What the page saved wins; resetting removes both, so the target's template applies again.
// Below them, the site's choice for a post read from its feed (decision 0038: POSSE Party's
// `<posse:post>` text, truncate and append_url per target), kept by the feed source in the post
// property `mp-syndicate-site-text`: used where the user has no own words for that target.
// `wordsFor` is that order, with the user's thread choice (thread-choices.ts), for the preview, the
// send, the edit and the copy's digest alike.

import { z } from "zod";
import type { Database } from "../../contract/database.ts";
import type { PostSource } from "../../contract/post-source.ts";
import type { Post } from "../../contract/posts.ts";
import { type PreviewOptions, SITE_TEXT_PROPERTY, type SiteText } from "../../contract/syndicator.ts";

export const OWN_TEXT_PROPERTY = "mp-syndicate-text";

/** Longer than any service takes (Mastodon instances allow a few thousand characters at most). */
export const MAX_OWN_TEXT_LENGTH = 10_000;

export interface OwnText {
  text: string;
  /** Where it was given: on the page, or by the Micropub client with the post. */
  source: "page" | "micropub";
  updatedAt: Date | null;
}

/** The texts of the post property, by target uid (anything else in it is ignored). */
export function propertyTexts(post: Post): Map<string, string> {
  const texts = new Map<string, string>();
  const value = post.properties[OWN_TEXT_PROPERTY];
  const object = Array.isArray(value) ? value[0] : value;
  if (!object || typeof object !== "object") return texts;
  for (const [uid, text] of Object.entries(object as Record<string, unknown>))
    if (typeof text === "string" && text.trim()) texts.set(uid, text);
  return texts;
}

const siteText = z
  .object({
    text: z.string().max(MAX_OWN_TEXT_LENGTH).optional(),
    truncate: z.boolean().optional(),
    appendUrl: z.boolean().optional(),
  })
  .transform((choice): SiteText => {
    const kept: SiteText = {};
    if (choice.text?.trim()) kept.text = choice.text;
    if (choice.truncate !== undefined) kept.truncate = choice.truncate;
    if (choice.appendUrl !== undefined) kept.appendUrl = choice.appendUrl;
    return kept;
  });

/** The site's choices of a post from a feed, by target uid (a malformed one is left out). */
export function siteTexts(post: Post): Map<string, SiteText> {
  const choices = new Map<string, SiteText>();
  if (!post.origin) return choices;
  const value = post.properties[SITE_TEXT_PROPERTY];
  const object = Array.isArray(value) ? value[0] : value;
  if (!object || typeof object !== "object") return choices;
  for (const [uid, choice] of Object.entries(object as Record<string, unknown>)) {
    const parsed = siteText.safeParse(choice);
    if (parsed.success && Object.keys(parsed.data).length > 0) choices.set(uid, parsed.data);
  }
  return choices;
}

/**
 * How the text of the post's copy on `uid` is made: the user's own words, else the site's choice,
 * else (empty) the target's template; and the user's thread choice for it, when there is one.
 */
export function wordsFor(
  post: Post,
  ownTexts: ReadonlyMap<string, { text: string }> | undefined,
  uid: string,
  threadChoices: ReadonlyMap<string, boolean> | undefined,
): PreviewOptions {
  const thread = threadChoices?.get(uid);
  const choice = thread === undefined ? {} : { thread };
  const own = ownTexts?.get(uid);
  if (own) return { text: own.text, ...choice };
  const site = siteTexts(post).get(uid);
  return site ? { site, ...choice } : choice;
}

export class OwnTexts {
  constructor(
    private readonly database: Database,
    private readonly posts: PostSource,
  ) {}

  /** Every own text of a post, by target uid. */
  async forPost(post: Post): Promise<Map<string, OwnText>> {
    return (await this.forPosts([post])).get(post.id) ?? new Map();
  }

  /** Every own text of each post, by post id and target uid: one read for a page of posts. */
  async forPosts(posts: readonly Post[]): Promise<Map<string, Map<string, OwnText>>> {
    const byPost = new Map<string, Map<string, OwnText>>();
    if (posts.length === 0) return byPost;
    for (const post of posts) {
      const texts = new Map<string, OwnText>();
      for (const [uid, text] of propertyTexts(post))
        texts.set(uid, { text, source: "micropub", updatedAt: null });
      byPost.set(post.id, texts);
    }
    const result = await this.database.query<{
      post_id: string;
      target_uid: string;
      text: string;
      updated_at: Date;
    }>(
      `SELECT post_id::text AS post_id, target_uid, text, updated_at FROM syndication_texts
        WHERE post_id = ANY($1::bigint[])`,
      [posts.map((post) => post.id)],
    );
    for (const row of result.rows)
      byPost
        .get(row.post_id)
        ?.set(row.target_uid, { text: row.text, source: "page", updatedAt: row.updated_at });
    return byPost;
  }

  async save(post: Post, targetUid: string, text: string): Promise<void> {
    await this.database.query(
      `INSERT INTO syndication_texts (post_id, target_uid, text) VALUES ($1::bigint, $2, $3)
        ON CONFLICT (post_id, target_uid) DO UPDATE SET text = EXCLUDED.text, updated_at = now()`,
      [post.id, targetUid, text],
    );
  }

  /** Back to the template: the saved text and the Micropub client's, for this target only. */
  async reset(post: Post, targetUid: string): Promise<void> {
    await this.database.query(
      "DELETE FROM syndication_texts WHERE post_id = $1::bigint AND target_uid = $2",
      [post.id, targetUid],
    );
    const given = propertyTexts(post);
    if (!given.has(targetUid)) return;
    given.delete(targetUid);
    await this.posts.update(
      post.url,
      given.size === 0
        ? { delete: [OWN_TEXT_PROPERTY] }
        : { replace: { [OWN_TEXT_PROPERTY]: [Object.fromEntries(given)] } },
    );
  }
}
