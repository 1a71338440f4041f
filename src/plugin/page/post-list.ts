// The list of posts on the Syndicate page and what chooses it: a state (awaiting by default, needing
// attention, waiting, all), a target, a run, where the posts come from, and a search of titles and
// URLs, all as GET query parameters so that a filtered list is a link. The default list reads the posts' own index; the
// filtered ones ask the syndication core, which knows the ledger.
import { z } from "zod";
import type { PostState } from "../../syndication/reads/post-filter.ts";
import { type PostRowView, postRows } from "./post-row.ts";
import type { PageServices } from "./services.ts";

export const PAGE_SIZE = 50;

export const POST_STATES: readonly PostState[] = ["awaiting", "attention", "waiting", "all"];

const optionalText = z
  .string()
  .trim()
  .max(2048)
  .transform((value) => value || undefined)
  .optional()
  .catch(undefined);

// Anything a link or a hand-edited address may carry: what cannot be read is left out rather than refused.
export const listQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).catch(1).default(1),
  state: z.enum(["awaiting", "attention", "waiting", "all"]).catch("awaiting").default("awaiting"),
  target: optionalText,
  q: optionalText,
  /** Where the posts come from: an origin (`feed:blog`), or "own" for the site's own. */
  origin: optionalText,
  run: z
    .string()
    .regex(/^\d{1,19}$/)
    .optional()
    .catch(undefined),
});

export type ListQuery = z.infer<typeof listQuerySchema>;

export function isFiltered(query: ListQuery): boolean {
  return query.state !== "awaiting" || !!query.target || !!query.q || !!query.run || !!query.origin;
}

/** The page's address for a query: only what differs from the default, so that links stay short. */
export function listHref(mountPath: string, query: ListQuery, changes: Partial<ListQuery> = {}): string {
  const merged = { ...query, ...changes };
  const params = new URLSearchParams();
  if (merged.state !== "awaiting") params.set("state", merged.state);
  if (merged.target) params.set("target", merged.target);
  if (merged.q) params.set("q", merged.q);
  if (merged.origin) params.set("origin", merged.origin);
  if (merged.run) params.set("run", merged.run);
  if (merged.page > 1) params.set("page", String(merged.page));
  const search = params.toString();
  return search ? `${mountPath}?${search}` : mountPath;
}

export interface PostList {
  rows: PostRowView[];
  total: number;
  page: number;
  pages: number;
  offset: number;
}

/** How many posts the list holds (the count above it), without loading a page of them. */
export async function countPostList(services: PageServices, query: ListQuery): Promise<number> {
  const { syndication, posts } = services;
  if (isFiltered(query))
    return (await syndication.reads.findPosts(filterOf(query), { offset: 0, limit: 1 })).total;
  // Posts that name only targets no longer configured do not wait (they are sent if one returns).
  return posts.countAwaitingSyndication(syndication.reads.targetUids());
}

export async function loadPostList(services: PageServices, query: ListQuery): Promise<PostList> {
  const { syndication, posts, syndicators, mountPath } = services;
  type Found = Awaited<ReturnType<typeof posts.listAwaitingSyndication>>;
  // Posts that name only targets no longer configured do not wait (they are sent if one returns).
  const onlyTargets = syndication.reads.targetUids();
  let total: number;
  let ids: string[] | null = null;
  if (isFiltered(query)) {
    const first = await syndication.reads.findPosts(filterOf(query), pageOf(query.page));
    total = first.total;
    ids = first.ids;
  } else total = await posts.countAwaitingSyndication(onlyTargets);
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const page = Math.min(query.page, pages);
  const offset = (page - 1) * PAGE_SIZE;
  let found: Found = [];
  if (ids === null) {
    if (total > 0) found = await posts.listAwaitingSyndication({ offset, limit: PAGE_SIZE, onlyTargets });
  } else {
    // A page past the end shows the last one.
    if (page !== query.page) ids = (await syndication.reads.findPosts(filterOf(query), pageOf(page))).ids;
    const loaded = await Promise.all(ids.map((id) => posts.findById(id)));
    found = loaded.filter((post): post is Found[number] => post !== null && !post.deleted);
  }
  const rows = await postRows(
    found,
    (ids) => syndication.reads.summaryForPosts(ids),
    syndicators,
    mountPath,
    syndication.reads.now(),
    (ids) => syndication.reads.liveChecksForPosts(ids),
    () => syndication.reads.pausedTargets(),
  );
  return { rows, total, page, pages, offset };
}

function pageOf(page: number) {
  return { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE };
}

function filterOf(query: ListQuery) {
  return {
    state: query.state,
    target: query.target,
    search: query.q,
    runId: query.run,
    origin: query.origin,
  };
}
