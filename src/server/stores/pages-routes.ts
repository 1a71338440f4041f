// The pages store's public routes: each published post at its own URL as an h-entry page, and the
// recent posts as an Atom feed and a JSON Feed (the home page lists them as an h-feed). Installed
// after every host and plug-in route, just before "not found": a post's URL never hides a route.
//
// Micropub's visibility (src/contract/visibility.ts): an unlisted post is served at its URL and
// listed nowhere; a private post only to the signed-in owner, and to anyone else exactly as a URL
// with no post (404, never 403 or 410), so that its existence is not given away.
import express, { type Request, type RequestHandler, type Router } from "express";
import { decodeEntities } from "../../contract/plain-text.ts";
import type { Post } from "../../contract/posts.ts";
import type { SyndicatorInfo } from "../../contract/syndicator.ts";
import { visibilityOf } from "../../contract/visibility.ts";
import type { PostService } from "../posts/post-service-interface.ts";
import { copyPlace } from "./copy-place.ts";
import { contentHtml } from "./safe-html.ts";

export const FEED_PATHS = { atom: "/feed.xml", json: "/feed.json" } as const;
const RECENT = 20;

export interface PostView {
  url: string;
  name?: string;
  html: string;
  published: Date;
  updated: Date;
  photos: Array<{ url: string; alt: string }>;
  categories: string[];
  /** Every copy's URL, with the name of the place it is on (the service and account where known). */
  syndication: Array<{ url: string; site: string }>;
}

const strings = (value: unknown): string[] =>
  (Array.isArray(value) ? value : []).filter((item): item is string => typeof item === "string");

export function postView(post: Post, targets: readonly SyndicatorInfo[] = []): PostView {
  const p = post.properties;
  const photos = (Array.isArray(p.photo) ? p.photo : []).flatMap((item) => {
    const url = typeof item === "string" ? item : (item as { url?: unknown })?.url;
    const alt = typeof item === "object" && item ? (item as { alt?: unknown }).alt : undefined;
    return typeof url === "string" && /^https?:/.test(url)
      ? [{ url, alt: typeof alt === "string" ? alt : "" }]
      : [];
  });
  return {
    url: post.url,
    ...(typeof p.name === "string" && p.name.trim() !== "" ? { name: p.name } : {}),
    html: contentHtml(p.content),
    published: post.published,
    updated: post.updated,
    photos,
    categories: strings(p.category),
    syndication: strings(p.syndication)
      .filter((url) => URL.canParse(url))
      .map((url) => ({ url, site: copyPlace(url, targets) })),
  };
}

/** A page of the post service while looking for the recent posts, and how many such pages at most. */
const LIST_PAGE = 50;
const MAX_LIST_PAGES = 20;

/** Whether a list (the home page, the feeds) shows the post: published, not deleted, public. */
const listed = (post: Post) =>
  post.status === "published" && !post.deleted && visibilityOf(post.properties) === "public";

/**
 * The newest listed posts, newest first: drafts, unlisted and private posts are passed over, a page
 * at a time, so that many of them never leave the list short (up to 1,000 posts are looked at).
 */
export async function recentPosts(posts: PostService, limit = RECENT): Promise<PostView[]> {
  const found: Post[] = [];
  let before: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES && found.length < limit; page++) {
    const { posts: batch, next } = await posts.list({ limit: LIST_PAGE, ...(before ? { before } : {}) });
    found.push(...batch.filter(listed));
    if (!next || batch.length < LIST_PAGE) break;
    before = next;
  }
  return found.slice(0, limit).map((post) => postView(post));
}

const xml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c] ?? c,
  );

// A note's title in the Atom feed is the start of its text: tags dropped and entities decoded, so
// that "Tom &amp; Jerry" in the HTML reads "Tom & Jerry" (xml() escapes it once, for the feed).
const plainTitle = (view: PostView) =>
  view.name ??
  decodeEntities(view.html.replace(/<[^>]*>/g, " "))
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 80);

export function atomFeed(views: PostView[], site: { name: string; me: string; feedUrl: string }): string {
  const updated = views[0]?.updated ?? new Date(0);
  const entries = views.map(
    (view) => `  <entry>
    <id>${xml(view.url)}</id>
    <link rel="alternate" type="text/html" href="${xml(view.url)}"/>
    <title>${xml(plainTitle(view))}</title>
    <published>${view.published.toISOString()}</published>
    <updated>${view.updated.toISOString()}</updated>
${view.categories.map((c) => `    <category term="${xml(c)}"/>\n`).join("")}    <content type="html">${xml(view.html)}</content>
  </entry>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>${xml(site.me)}</id>
  <title>${xml(site.name)}</title>
  <updated>${updated.toISOString()}</updated>
  <author><name>${xml(site.name)}</name></author>
  <link rel="alternate" type="text/html" href="${xml(site.me)}"/>
  <link rel="self" type="application/atom+xml" href="${xml(site.feedUrl)}"/>
${entries.join("\n")}
</feed>
`;
}

export function jsonFeed(views: PostView[], site: { name: string; me: string; feedUrl: string }) {
  return {
    version: "https://jsonfeed.org/version/1.1",
    title: site.name,
    home_page_url: site.me,
    feed_url: site.feedUrl,
    items: views.map((view) => ({
      id: view.url,
      url: view.url,
      ...(view.name ? { title: view.name } : {}),
      content_html: view.html,
      date_published: view.published.toISOString(),
      date_modified: view.updated.toISOString(),
      ...(view.categories.length > 0 ? { tags: view.categories } : {}),
      ...(view.photos[0] ? { image: view.photos[0].url } : {}),
    })),
  };
}

export interface PagesSite {
  posts: () => PostService | null;
  name: string;
  /** The publication's URL, with its trailing slash. */
  me: string;
  /** The server's own URL (where the feeds are). */
  url: string;
  /** Whether the request comes from the signed-in owner (who alone sees private posts). */
  isOwner: (req: Request) => Promise<boolean>;
  /** The targets now known (connected accounts included), to name the place each copy is on. */
  targets?: () => readonly SyndicatorInfo[];
}

export function pagesFeeds(site: PagesSite): Router {
  const router = express.Router();
  const meta = (kind: "atom" | "json") => ({
    name: site.name,
    me: site.me,
    feedUrl: `${site.url}${FEED_PATHS[kind]}`,
  });
  router.get(FEED_PATHS.atom, async (_req, res, next) => {
    const posts = site.posts();
    if (!posts) return next();
    res.type("application/atom+xml").send(atomFeed(await recentPosts(posts), meta("atom")));
  });
  router.get(FEED_PATHS.json, async (_req, res, next) => {
    const posts = site.posts();
    if (!posts) return next();
    res.type("application/feed+json").send(JSON.stringify(jsonFeed(await recentPosts(posts), meta("json"))));
  });
  return router;
}

/** The post whose URL a request names: the request's path below the publication's origin. */
function requestedUrl(req: Request, me: string): string {
  return new URL(req.path, me).href;
}

export function postPages(site: PagesSite): RequestHandler {
  return async (req, res, next) => {
    const posts = site.posts();
    if ((req.method !== "GET" && req.method !== "HEAD") || !posts) return next();
    // A published post this request may know of: a private one only for the owner.
    const shown = async (post: Post | null): Promise<Post | null> => {
      if (post?.status !== "published") return null;
      if (visibilityOf(post.properties) !== "private") return post;
      return (await site.isOwner(req)) ? post : null;
    };
    const url = requestedUrl(req, site.me);
    const post = await shown(await posts.findByUrl(url));
    if (!post && !url.endsWith("/")) {
      // /notes/abc for /notes/abc/: where the post is.
      const withSlash = await shown(await posts.findByUrl(`${url}/`));
      if (withSlash && !withSlash.deleted) return res.redirect(301, new URL(withSlash.url).pathname);
    }
    if (!post) return next();
    const visibility = visibilityOf(post.properties);
    if (visibility !== "public") {
      // Kept out of search engines; a private page, for the owner alone, out of every shared cache.
      res.setHeader("X-Robots-Tag", "noindex");
      if (visibility === "private") res.setHeader("Cache-Control", "private, no-store");
    }
    if (post.deleted) {
      res.status(410);
      return res.render("pages/gone.njk", { title: res.locals.t("pages.gone") });
    }
    const view = postView(post, site.targets?.() ?? []);
    res.render("pages/post.njk", {
      title: view.name ?? res.locals.t("pages.note"),
      post: view,
      feeds: FEED_PATHS,
    });
  };
}
