// GET {mountPath}/status: the page polls this every few seconds, so that it says when a run is in
// progress even when it was started elsewhere (the webhook, the command line, the scheduler,
// another tab), keeps "Syndicate all" disabled meanwhile, updates the rows that run changes, and,
// once it has ended, announces how it went, the new count and the recent runs. A run the page
// started itself (`own`) is followed by its own stream instead.
import type { RequestHandler } from "express";
import { z } from "zod";
import type { Post } from "../../contract/posts.ts";
import { isFiltered, listHref, listQuerySchema, loadPostList } from "../page/post-list.ts";
import { postRow } from "../page/post-row.ts";
import { renderView } from "../page/render.ts";
import { runStatusView } from "../page/run-status.ts";
import { batchSummaryView } from "../page/run-summary.ts";
import { pageServices, translatorOf } from "../page/services.ts";
import { recentRunsWorthListing } from "./page.ts";
import type { RouteContext } from "./route-context.ts";

const runId = z
  .string()
  .regex(/^\d{1,20}$/)
  .optional()
  .catch(undefined);

const querySchema = z.object({
  /** The run the page showed in progress, to tell when it has ended. */
  seen: runId,
  /** The run whose end the page has already announced. */
  announced: runId,
  /** The page follows this run through its own stream. */
  own: z.literal("1").optional().catch(undefined),
  /** When the page last heard from the server: rows changed since then are sent again. */
  since: z.iso
    .datetime()
    .optional()
    .catch(undefined)
    .transform((value) => (value ? new Date(value) : undefined)),
  /** The posts the page shows. */
  row: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .catch(undefined)
    .transform((value) =>
      (value === undefined ? [] : Array.isArray(value) ? value : [value])
        .filter((id) => /^\d{1,19}$/.test(id))
        .slice(0, 100),
    ),
});

/** Ledger times come from the database's clock: a little slack for a server clock a moment apart. */
const CLOCK_SLACK_MS = 5_000;

export function runStatusRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    const { syndication, mountPath } = services;
    const query = querySchema.parse(req.query);
    const view = listQuerySchema.parse(req.query);
    const viewHref = listHref(mountPath, view);
    const now = syndication.reads.now();
    // A run that started and ended between two polls was never seen in progress: its end is
    // still news to this page.
    const endedBetweenPolls = async () => {
      if (!query.since) return undefined;
      const after = query.since.getTime() - CLOCK_SLACK_MS;
      const run = (await syndication.reads.recentRuns(5)).find(
        (candidate) =>
          candidate.kind === "batch" && candidate.finishedAt && candidate.finishedAt.getTime() > after,
      );
      return run && run.id !== query.announced ? run.id : undefined;
    };
    const elsewhere = query.own !== "1";
    const seenStatus = await runStatusView(
      syndication,
      query.seen ?? (elsewhere ? await endedBetweenPolls() : undefined),
    );
    // The page's own run is told by its own stream; a poll answered after that stream's summary
    // must not show the same end a second time.
    const status = elsewhere ? seenStatus : { ...seenStatus, ended: null };
    const endedNow = status.ended && status.ended.runId !== query.announced ? status.ended : null;

    let rows: ReturnType<typeof postRow>[] = [];
    if (elsewhere && (status.inProgress || endedNow) && query.since && query.row.length > 0) {
      const after = query.since.getTime() - CLOCK_SLACK_MS;
      const entries = await syndication.reads.summaryForPosts(query.row);
      const changed = query.row.filter((id) =>
        (entries.get(id) ?? []).some((entry) => entry.updatedAt.getTime() > after),
      );
      const posts = (await Promise.all(changed.map((id) => services.posts.findById(id)))).filter(
        (post): post is Post => post !== null && !post.deleted,
      );
      const [checks, paused] = await Promise.all([
        syndication.reads.liveChecksForPosts(posts.map((post) => post.id)),
        syndication.reads.pausedTargets(),
      ]);
      rows = posts.map((post) =>
        postRow(
          post,
          entries.get(post.id) ?? [],
          services.syndicators,
          mountPath,
          now,
          checks.get(post.id),
          paused,
        ),
      );
    }

    // The end of a run started elsewhere: announced once, with the list's new count.
    let ending: Record<string, unknown> | null = null;
    if (elsewhere && endedNow) {
      const [list, runs, attention] = await Promise.all([
        loadPostList(services, view),
        recentRunsWorthListing(syndication),
        syndication.reads.postsNeedingAttention(),
      ]);
      ending = {
        summary: endedNow.record
          ? batchSummaryView(translatorOf(res), endedNow.record.summary, mountPath)
          : null,
        total: list.total,
        runs,
        needingAttention: attention.all,
      };
    }

    const html = await renderView(res, "syndicate/events/status.njk", {
      live: true,
      mountPath,
      status,
      announced: endedNow ? endedNow.runId : query.announced,
      own: !elsewhere && status.inProgress !== null,
      statusAt: now.toISOString(),
      reloadHref: viewHref,
      redirectUri: viewHref,
      filtered: isFiltered(view),
      rows,
      ending,
    });
    res.setHeader("Cache-Control", "no-store");
    res.type("html").send(html);
  };
}
