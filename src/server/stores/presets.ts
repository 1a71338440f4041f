// What each site generator expects (decision 0032): where a post's file goes, the URL the generator gives
// it, how a draft is kept, and the front matter keys its templates read. Each follows the
// generator's own documentation:
// - Hugo: content/<section>/<slug>.md is published at /<section>/<slug>/; front matter title, date,
//   draft, tags (the default taxonomy); other keys reach templates as .Params.
// - Jekyll: _posts/YEAR-MONTH-DAY-slug.md, published with the default permalink style "date" at
//   /YEAR/MONTH/DAY/slug.html; drafts are files in _drafts/ without a date; front matter layout,
//   title, date, tags.
// - Eleventy: notes/<slug>.md is published at /notes/<slug>/; front matter title, date, tags. It
//   has no drafts of its own, so drafts are kept back until published.
// An unlisted post (Micropub visibility) is written with `visibility: unlisted` for every
// generator's templates, and kept out of lists where the generator has a key for it: Hugo's
// `build: {list: never}` (content-management/build-options), Eleventy's
// `eleventyExcludeFromCollections: true`; Jekyll lists every file of _posts in site.posts, so its
// templates must skip `visibility: unlisted` themselves (`sitemap: false` keeps jekyll-sitemap off it).
// A private post has no file at all (file-store.ts): a static site cannot keep a page to one reader.

import type { Post } from "../../contract/posts.ts";
import { visibilityOf } from "../../contract/visibility.ts";
import type { PostTypeName, PresetName } from "../config/schema.ts";

export interface PostTypeTemplates {
  /** Path of the post's file in the repository. */
  path: string;
  /** The post's URL on the site. */
  url: string;
}

export interface Preset {
  name: PresetName;
  types: Record<PostTypeName, PostTypeTemplates>;
  /** Where a draft's file goes; "front-matter": at its usual path, marked in the front matter; none: kept back. */
  drafts: { path: string } | "front-matter" | "none";
  /** Uploaded files: their path in the repository and their URL on the site ({name}: the stored name). */
  media: { path: string; url: string };
  /** The front matter of a post (the JF2 values already read out by `frontMatterValues`). */
  frontMatter(values: FrontMatterValues): Record<string, unknown>;
}

/** What every preset writes, under its own keys. */
export interface FrontMatterValues {
  title?: string;
  /** ISO 8601. */
  date: string;
  draft: boolean;
  /** Served at its URL, listed nowhere (Micropub `visibility: unlisted`). */
  unlisted: boolean;
  tags: string[];
  syndication: string[];
  photo: Array<{ url: string; alt?: string }>;
  /** in-reply-to, like-of, repost-of, bookmark-of: as they are. */
  contexts: Record<string, string[]>;
}

const CONTEXTS = ["in-reply-to", "like-of", "repost-of", "bookmark-of"] as const;

const strings = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
    (item): item is string => typeof item === "string",
  );

/** The kind of a post, for its path and URL (post type discovery, simplified to three). */
export function postTypeOf(properties: Record<string, unknown>): PostTypeName {
  if (Array.isArray(properties.photo) && properties.photo.length > 0) return "photo";
  if (typeof properties.name === "string" && properties.name.trim() !== "") return "article";
  return "note";
}

export function frontMatterValues(post: Post): FrontMatterValues {
  const p = post.properties;
  const photo = (Array.isArray(p.photo) ? p.photo : []).flatMap((item) => {
    if (typeof item === "string") return [{ url: item }];
    if (item && typeof item === "object" && typeof (item as { url?: unknown }).url === "string") {
      const { url, alt } = item as { url: string; alt?: unknown };
      return [typeof alt === "string" && alt !== "" ? { url, alt } : { url }];
    }
    return [];
  });
  const contexts: Record<string, string[]> = {};
  for (const name of CONTEXTS) {
    const values = strings(p[name]);
    if (values.length > 0) contexts[name] = values;
  }
  return {
    ...(typeof p.name === "string" && p.name.trim() !== "" ? { title: p.name } : {}),
    date: post.published.toISOString(),
    draft: post.status === "draft",
    unlisted: visibilityOf(p) === "unlisted",
    tags: strings(p.category),
    syndication: strings(p.syndication),
    photo,
    contexts,
  };
}

/** Keys with nothing in them are left out, so that a generator's defaults apply. */
function withoutEmpty(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).filter(
      ([, value]) => value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0),
    ),
  );
}

/** The keys all three generators read alike; each preset adds its own. */
const sharedFrontMatter = (v: FrontMatterValues): Record<string, unknown> => ({
  title: v.title,
  date: v.date,
  tags: v.tags,
  syndication: v.syndication,
  photo: v.photo,
  ...v.contexts,
  visibility: v.unlisted ? "unlisted" : undefined,
});

const hugo: Preset = {
  name: "hugo",
  types: {
    note: { path: "content/notes/{slug}.md", url: "{me}notes/{slug}/" },
    article: { path: "content/articles/{slug}.md", url: "{me}articles/{slug}/" },
    photo: { path: "content/photos/{slug}.md", url: "{me}photos/{slug}/" },
  },
  drafts: "front-matter",
  media: { path: "static/media/{name}", url: "{me}media/{name}" },
  frontMatter: (v) => {
    const { title, date, ...rest } = sharedFrontMatter(v);
    return withoutEmpty({
      title,
      date,
      draft: v.draft,
      ...rest,
      build: v.unlisted ? { list: "never" } : undefined,
    });
  },
};

const jekyll: Preset = {
  name: "jekyll",
  types: {
    note: { path: "_posts/{yyyy}-{MM}-{dd}-{slug}.md", url: "{me}{yyyy}/{MM}/{dd}/{slug}.html" },
    article: { path: "_posts/{yyyy}-{MM}-{dd}-{slug}.md", url: "{me}{yyyy}/{MM}/{dd}/{slug}.html" },
    photo: { path: "_posts/{yyyy}-{MM}-{dd}-{slug}.md", url: "{me}{yyyy}/{MM}/{dd}/{slug}.html" },
  },
  drafts: { path: "_drafts/{slug}.md" },
  media: { path: "media/{name}", url: "{me}media/{name}" },
  // withoutEmpty leaves out false values: jekyll-sitemap's `sitemap: false` is added after it.
  frontMatter: (v) => ({
    ...withoutEmpty({ layout: "post", ...sharedFrontMatter(v) }),
    ...(v.unlisted ? { sitemap: false } : {}),
  }),
};

const eleventy: Preset = {
  name: "eleventy",
  types: {
    note: { path: "notes/{slug}.md", url: "{me}notes/{slug}/" },
    article: { path: "articles/{slug}.md", url: "{me}articles/{slug}/" },
    photo: { path: "photos/{slug}.md", url: "{me}photos/{slug}/" },
  },
  drafts: "none",
  media: { path: "media/{name}", url: "{me}media/{name}" },
  frontMatter: (v) =>
    withoutEmpty({ ...sharedFrontMatter(v), eleventyExcludeFromCollections: v.unlisted || undefined }),
};

export const PRESETS: Record<PresetName, Preset> = { hugo, jekyll, eleventy };
