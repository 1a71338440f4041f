// GET {mountPath}: the Syndicate page. The posts awaiting syndication (oldest first, 50 a page) with
// each target's state, the run in progress or the button that starts one, the configured targets,
// and the recent runs. With nothing awaiting: the latest results instead.

import type { Request, RequestHandler } from "express";
import { z } from "zod";
import type { SyndicatorPlugin } from "../../server/contract.ts";
import { publicationProblem } from "../../server/publication-check.ts";
import { postRows } from "../page/post-row.ts";
import { runStatusView } from "../page/run-status.ts";
import { pageServices, translatorOf } from "../page/services.ts";
import type { RouteContext } from "./index.ts";

export const PAGE_SIZE = 50;
const LATEST_RESULTS = 10;
const RECENT_RUNS = 10;

// A page number from a link; anything else shows the first page rather than an error.
const querySchema = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).catch(1).default(1),
});

export interface TargetListItem {
  uid: string;
  name: string;
  service: string | null;
  serviceUrl: string | null;
}

export function configuredTargets(syndicators: readonly SyndicatorPlugin[]): TargetListItem[] {
  return syndicators.map((syndicator) => ({
    uid: syndicator.info.uid,
    name: syndicator.info.name,
    service: syndicator.info.service?.name ?? null,
    serviceUrl: syndicator.info.service?.url ?? null,
  }));
}

/** The page's own address with its query, for forms to come back to (a local path by construction). */
export function pagePath(mountPath: string, page: number): string {
  return page > 1 ? `${mountPath}?page=${page}` : mountPath;
}

export function syndicatePageRoute(context: RouteContext): RequestHandler {
  return async (req: Request, res, next) => {
    try {
      const services = pageServices(context, res);
      const { syndication, posts, syndicators, mountPath } = services;
      const query = querySchema.parse(req.query);
      // Posts that name only targets no longer configured do not wait (they are sent if one returns).
      const onlyTargets = syndication.targetUids();
      const total = await posts.countAwaitingSyndication(onlyTargets);
      const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
      const page = Math.min(query.page, pages);
      const offset = (page - 1) * PAGE_SIZE;
      const [awaiting, status, runs, needingAttention, targetStates] = await Promise.all([
        total > 0
          ? posts.listAwaitingSyndication({ offset, limit: PAGE_SIZE, onlyTargets })
          : Promise.resolve([]),
        runStatusView(syndication),
        syndication.recentRuns(RECENT_RUNS),
        syndication.postsNeedingAttention(),
        syndication.targets(),
      ]);
      const summaryForPosts = (ids: readonly string[]) => syndication.summaryForPosts(ids);
      const rows = await postRows(awaiting, summaryForPosts, syndicators, mountPath, (ids) =>
        syndication.liveChecksForPosts(ids),
      );

      // Nothing waits: show what happened to the newest posts that were sent somewhere.
      let latest: Awaited<ReturnType<typeof postRows>> = [];
      if (total === 0) {
        const newest = (await posts.list({ limit: LATEST_RESULTS })).posts.filter(
          (post) => post.status === "published",
        );
        const entries = await syndication.summaryForPosts(newest.map((post) => post.id));
        const sent = newest.filter((post) => (entries.get(post.id)?.length ?? 0) > 0);
        latest = await postRows(sent, async () => entries, syndicators, mountPath);
      }

      res.setHeader("Cache-Control", "no-store");
      res.render("syndicate/page.njk", {
        title: translatorOf(res)("syndicate.title"),
        mountPath,
        redirectUri: pagePath(mountPath, page),
        total,
        page,
        pages,
        offset,
        rows,
        latest,
        status,
        runs,
        targets: configuredTargets(syndicators),
        targetStates,
        needingAttention: needingAttention.all,
        // Refused at start in production; in development the page says it where the user looks.
        localLinks: publicationProblem(services.server.publication.me, syndicators)
          ? services.server.publication.me
          : null,
      });
    } catch (error) {
      next(error);
    }
  };
}
