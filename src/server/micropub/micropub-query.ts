// GET /micropub?q=…: config, syndicate-to, post-types and category, and source (one post, or the
// newest posts page by page). What configuration alone answers is answered without a database.
import type { Request, RequestHandler } from "express";
import { z } from "zod";
import { badRequest, insufficientScope } from "../../contract/http-error.ts";
import { jf2ToMf2Item, type Mf2Item } from "../../contract/mf2-jf2.ts";
import type { Post } from "../../contract/posts.ts";
import { mayReadPosts } from "../../contract/reading-scopes.ts";
import { type MicropubConfiguration, type MicropubContext, withoutDatabase } from "./micropub-context.ts";
import { asMicropubErrors } from "./service-errors.ts";
import { syndicateToList } from "./syndication-targets.ts";

const QUERIES = ["config", "syndicate-to", "post-types", "category", "source"] as const;
/** At most this many categories in one answer: a client offers them as suggestions. */
const MAX_CATEGORIES = 1000;

/** The kinds of post this server keeps and syndicates (the Micropub post-types extension). */
const POST_TYPES = [
  { type: "note", name: "Note" },
  { type: "article", name: "Article" },
  { type: "photo", name: "Photo" },
  { type: "reply", name: "Reply" },
  { type: "like", name: "Like" },
  { type: "repost", name: "Repost" },
  { type: "bookmark", name: "Bookmark" },
];
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

// Express 5 parses query strings with node's simple parser (properties[]=a arrives under the key
// "properties[]"); an extended parser would give "properties". Both are read.
const queryValue = z.union([z.string(), z.array(z.string())]).optional();
const querySchema = z.object({
  q: queryValue,
  url: queryValue,
  limit: queryValue,
  after: queryValue,
  before: queryValue,
  filter: queryValue,
  properties: queryValue,
  "properties[]": queryValue,
});

type Query = z.infer<typeof querySchema>;

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function readQuery(req: Request): Query {
  const parsed = querySchema.safeParse(req.query);
  if (!parsed.success) throw badRequest("The query parameters must be plain text values");
  return parsed.data;
}

function requestedProperties(query: Query): string[] | undefined {
  const names = [query.properties, query["properties[]"]].flatMap((value) =>
    value === undefined ? [] : Array.isArray(value) ? value : [value],
  );
  return names.length > 0 ? names : undefined;
}

/** Only the named properties, as {properties} without type (Micropub §3.7.2). */
function selectProperties(item: Mf2Item, names: string[]): { properties: Mf2Item["properties"] } {
  const properties: Mf2Item["properties"] = {};
  for (const name of names) {
    const values = Object.hasOwn(item.properties, name) ? item.properties[name] : undefined;
    if (values) properties[name] = values;
  }
  return { properties };
}

function readLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const limit = Number(value);
  if (!/^[0-9]+$/.test(value) || limit < 1 || limit > MAX_LIMIT)
    throw badRequest(`limit must be a whole number from 1 to ${MAX_LIMIT}; got "${value}"`);
  return limit;
}

async function source(
  context: Pick<MicropubContext, "posts" | "syndicators">,
  query: Query,
): Promise<unknown> {
  const names = requestedProperties(query);
  const present = (post: Post) => {
    const item = jf2ToMf2Item(post.properties);
    return names ? selectProperties(item, names) : item;
  };
  const url = first(query.url);
  if (url !== undefined) {
    const post = await context.posts.findByUrl(url);
    if (!post)
      throw badRequest(`No post exists at ${url}; check the URL (q=source without url lists the posts)`);
    if (post.deleted) throw badRequest(`The post at ${url} is deleted; undelete it to see its source`);
    return present(post);
  }
  const limit = readLimit(first(query.limit));
  // Micropub's `after` walks on to older posts (the next page), `before` back to newer ones.
  const after = first(query.after);
  const before = first(query.before);
  if (after && before) throw badRequest("Send after or before, not both");
  const page = await asMicropubErrors(() =>
    context.posts.list({ limit, ...(after ? { before: after } : {}), ...(before ? { after: before } : {}) }),
  );
  return {
    items: page.posts.map(present),
    paging: {
      ...(page.next ? { after: page.next } : {}),
      ...(page.previous ? { before: page.previous } : {}),
    },
  };
}

async function categories(posts: MicropubContext["posts"], query: Query): Promise<unknown> {
  const filter = first(query.filter)?.trim();
  if (filter !== undefined && filter.length > 200) throw badRequest("filter must be at most 200 characters");
  const found = await asMicropubErrors(() =>
    posts.categories({ limit: MAX_CATEGORIES, ...(filter ? { filter } : {}) }),
  );
  return { categories: found };
}

/**
 * Posts and their categories are read with create, update or delete; a media- or draft-only token
 * reads the configuration only (Micropub §3.8: 401 insufficient_scope, naming a scope that reads).
 */
function readsPosts(req: Request): void {
  if (!mayReadPosts(req.auth)) throw insufficientScope("update", 401);
}

export function micropubQuery(configuration: () => MicropubConfiguration): RequestHandler {
  return async (req, res) => {
    const query = readQuery(req);
    const q = first(query.q);
    if (q === undefined)
      throw badRequest(`Ask a question with q: this endpoint answers q=${QUERIES.join(", q=")}`);
    const found = configuration();
    const posts = () => {
      if (!found.posts) throw withoutDatabase();
      return { posts: found.posts, syndicators: found.syndicators };
    };
    switch (q) {
      case "config":
        res.json({
          "media-endpoint": found.mediaEndpoint,
          "syndicate-to": syndicateToList(found.syndicators),
          "post-types": POST_TYPES,
          q: [...QUERIES],
        });
        return;
      case "syndicate-to":
        res.json({ "syndicate-to": syndicateToList(found.syndicators) });
        return;
      case "post-types":
        res.json({ "post-types": POST_TYPES });
        return;
      case "category":
        readsPosts(req);
        res.json(await categories(posts().posts, query));
        return;
      case "source":
        readsPosts(req);
        res.json(await source(posts(), query));
        return;
      default:
        throw badRequest(`Unknown query q=${q}; this endpoint answers q=${QUERIES.join(", q=")}`);
    }
  };
}
