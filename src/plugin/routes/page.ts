// GET {mountPath}: the Syndicate page. The posts awaiting syndication (oldest first, 50 a page) with
// each target's state, the run in progress or the button that starts one, the configured targets,
// the feeds, and the recent runs. With nothing awaiting: the latest results instead.

import type { Request, RequestHandler } from "express";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import { publicationProblem } from "../../contract/publication-check.ts";
import { OWN_ORIGIN } from "../../syndication/reads/post-filter.ts";
import type { Syndication } from "../../syndication/syndication.ts";
import type { RunRecord } from "../../syndication/types.ts";
import { feedViews } from "../page/feed-view.ts";
import { isFiltered, listHref, listQuerySchema, loadPostList, POST_STATES } from "../page/post-list.ts";
import { originView } from "../page/post-origin.ts";
import { postRows } from "../page/post-row.ts";
import { runStatusView } from "../page/run-status.ts";
import { pageServices, translatorOf } from "../page/services.ts";
import type { RouteContext } from "./route-context.ts";

const LATEST_RESULTS = 10;
const RECENT_RUNS = 10;

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

/**
 * The recent runs the page lists: runs that sent nothing (every post skipped, or no post at all)
 * are left out, the one in progress is kept.
 */
export async function recentRunsWorthListing(syndication: Syndication): Promise<RunRecord[]> {
  const runs = await syndication.reads.recentRuns(RECENT_RUNS * 5);
  return runs
    .filter(
      (run) =>
        run.status === "running" || run.summary.syndicated + run.summary.partial + run.summary.failed > 0,
    )
    .slice(0, RECENT_RUNS);
}

export function syndicatePageRoute(context: RouteContext): RequestHandler {
  return async (req: Request, res) => {
    const services = pageServices(context, res);
    const { syndication, posts, syndicators, mountPath } = services;
    const query = listQuerySchema.parse(req.query);
    // The filter form sends its empty fields too: the list's own short address is the link to keep.
    if (Object.values(req.query).some((value) => value === "")) {
      res.redirect(302, listHref(mountPath, query));
      return;
    }
    const [list, status, runs, needingAttention, targetStates, sourceStates, origins, feeds] =
      await Promise.all([
        loadPostList(services, query),
        runStatusView(syndication),
        recentRunsWorthListing(syndication),
        syndication.reads.postsNeedingAttention(),
        syndication.reads.targets(),
        Promise.all(context.sources().map((source) => source.report())),
        syndication.reads.postOrigins(),
        feedViews(context.feeds(), syndicators, mountPath),
      ]);
    // The banners of write-backs the site refuses: read once, with each feed's report.
    const writeBackStates = feeds.flatMap((feed) =>
      feed.writeBack ? [{ ...feed.writeBack, feed: feed.key }] : [],
    );
    const { rows, total, page, pages, offset } = list;
    const filtered = isFiltered(query);
    const here = { ...query, page };

    // Nothing waits: show what happened to the newest posts that were sent somewhere.
    let latest: Awaited<ReturnType<typeof postRows>> = [];
    // Why nothing waits, when it is not that everything was sent: what to do next (decision 0051).
    let nextSteps: { target: boolean; post: boolean } | null = null;
    if (total === 0 && !filtered) {
      const all = (await posts.list({ limit: LATEST_RESULTS })).posts;
      const newest = all.filter((post) => post.status === "published");
      if (syndicators.length === 0 || all.length === 0)
        nextSteps = { target: syndicators.length === 0, post: all.length === 0 };
      const entries = await syndication.reads.summaryForPosts(newest.map((post) => post.id));
      const sent = newest.filter((post) => (entries.get(post.id)?.length ?? 0) > 0);
      latest = await postRows(sent, async () => entries, syndicators, mountPath, syndication.reads.now());
    }

    res.setHeader("Cache-Control", "no-store");
    res.render("syndicate/page.njk", {
      title: translatorOf(res)("syndicate.title"),
      mountPath,
      redirectUri: listHref(mountPath, here),
      query: here,
      statusAt: syndication.reads.now().toISOString(),
      filtered,
      states: POST_STATES,
      pageHref: (changes: Record<string, unknown>) => listHref(mountPath, here, changes),
      total,
      page,
      pages,
      offset,
      rows,
      latest,
      nextSteps,
      // "Syndicate all" leaves a failed target alone until its next try: said beside the button.
      waitingRetry: rows.some((row) => row.targets.some((target) => target.kind === "backoff")),
      micropubUrl: new URL("/micropub", services.server.config.application.url).href,
      status,
      runs,
      targets: configuredTargets(syndicators),
      // The origin filter: only once there are posts from elsewhere (or one is chosen).
      origins: origins.map((origin) => originView(origin, mountPath)),
      ownOrigin: OWN_ORIGIN,
      targetStates,
      sourceStates,
      feeds,
      writeBackStates,
      needingAttention: needingAttention.all,
      // Refused at start in production; in development the page says it where the user looks.
      localLinks: publicationProblem(services.server.publication.me, syndicators)
        ? services.server.publication.me
        : null,
    });
  };
}
