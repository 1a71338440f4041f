// Server-sent events for the Syndicate page (htmx with its hx-sse extension). The extension swaps
// the data of an unnamed message like any htmx response (a named event would only be dispatched as a
// DOM event), so every message here is unnamed HTML: <hx-partial> elements that replace a post's row
// by its id (outerMorph, which keeps the focused button), the progress line and the run status; and,
// at the start and the end, the announcement swapped into the page's aria-live region (the target
// of the button that asked).
//
// Rows are rendered one after another in the order of the results; the run never waits for them.
import type { Request, Response } from "express";
import type { Logger } from "../../contract/logger.ts";
import { countInto, emptySummary } from "../../syndication/runs/post-result.ts";
import type { TargetPause } from "../../syndication/runs/target-pauses.ts";
import type { PostResult, RunSummary } from "../../syndication/types.ts";
import { countPostList, isFiltered, listQuerySchema, loadPostList } from "../page/post-list.ts";
import { postRow } from "../page/post-row.ts";
import { renderView } from "../page/render.ts";
import { runStatusView } from "../page/run-status.ts";
import { batchSummaryView, progressText, singleSummaryView } from "../page/run-summary.ts";
import { pageServices, translatorOf } from "../page/services.ts";
import { recentRunsWorthListing } from "../routes/page.ts";
import { redirectUriOf } from "../routes/redirect-uri.ts";
import type { RouteContext } from "../routes/route-context.ts";
import type { ResultSink } from "./result-sink.ts";
import { startEventStream } from "./streams.ts";

/** How long the paused targets read for one row are good for the next rows of the stream. */
const PAUSES_FRESH_MS = 2_000;

/** A long run says how far it has got in the live region every this many posts. */
export const ANNOUNCE_EVERY = 5;

export function htmxSseSink(req: Request, res: Response, context: RouteContext, single: boolean): ResultSink {
  const services = pageServices(context, res);
  const logger: Logger | undefined = services.server.logger;
  const stream = startEventStream(res);
  // The page the buttons were on, for the rows' forms and the status's link back to the list.
  const redirectUri = redirectUriOf(req) ?? services.mountPath;
  // The list the page shows (its filter), for the count at the end.
  const view = listQuerySchema.parse(
    Object.fromEntries(new URL(redirectUri, "http://page.invalid").searchParams.entries()),
  );
  const t = translatorOf(res);
  const progress: RunSummary = emptySummary();
  const gone = () => res.writableEnded || res.destroyed;
  // For the announcement at the end of a single post's run.
  let last: { result: PostResult; title: string | null } | null = null;

  // One message at a time, in order: a slow render never lets a later row overtake an earlier one.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (what: string, render: () => Promise<string | null>) => {
    queue = queue.then(async () => {
      if (gone()) return;
      try {
        const html = await render();
        if (html !== null) stream.send(null, html);
      } catch (error) {
        logger?.warn("Could not render a Syndicate page update", {
          what,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    });
  };

  // Which targets are paused (holding posts back), read again at most every few seconds however
  // many rows stream.
  let paused: { at: number; value: Promise<Map<string, TargetPause>> } | null = null;
  const currentPauses = () => {
    if (!paused || Date.now() - paused.at > PAUSES_FRESH_MS)
      paused = { at: Date.now(), value: services.syndication.reads.pausedTargets() };
    return paused.value;
  };

  // The batch this stream follows, as the lease names it: once it has ended, the status says so.
  let batchRunId: string | undefined;
  const status = () => runStatusView(services.syndication, batchRunId);

  // The posts that awaited when the run started: the one progress line counts up to it.
  let total: number | undefined;
  if (!single) {
    enqueue("start", async () => {
      total = await services.posts.countAwaitingSyndication(services.syndication.reads.targetUids());
      const started = await status();
      batchRunId = started.inProgress?.runId;
      return renderView(res, "syndicate/events/started.njk", {
        live: true,
        mountPath: services.mountPath,
        status: started,
        reloadHref: redirectUri,
        statusAt: services.syndication.reads.now().toISOString(),
      });
    });
  }

  return {
    result: (result: PostResult) => {
      countInto(progress, result);
      const counts = { ...progress };
      last = { result, title: null };
      const mine = last;
      enqueue(`row of ${result.url}`, async () => {
        const post = await services.posts.findByUrl(result.url);
        const row =
          post && !post.deleted
            ? postRow(
                post,
                await services.syndication.reads.entriesForPost(post.id),
                services.syndicators,
                services.mountPath,
                services.syndication.reads.now(),
                (await services.syndication.reads.liveChecksForPosts([post.id])).get(post.id),
                await currentPauses(),
              )
            : null;
        mine.title = row?.title ?? null;
        // In a batch, the live region hears of each failure as it happens, and of the count now and
        // then; a single post's outcome is announced at the end.
        let announce: { kind: string; text: string; quiet?: boolean } | null = null;
        if (!single && (result.status === "failed" || result.status === "partial")) {
          announce = singleSummaryView(t, result, mine.title ?? result.url, "live");
        } else if (!single && counts.posts % ANNOUNCE_EVERY === 0) {
          // Heard, not shown: the progress line above is the one visible count.
          announce = { kind: "info", text: progressText(t, counts, total), quiet: true };
        }
        return renderView(res, "syndicate/events/result.njk", {
          live: true,
          mountPath: services.mountPath,
          redirectUri,
          row,
          // The list's count follows the run: a post sent leaves the awaiting list as its row changes.
          listTotal: single ? undefined : await countPostList(services, view),
          filtered: isFiltered(view),
          progressText: progressText(t, counts, total),
          single,
          announce,
        });
      });
    },
    end: async (summary: RunSummary) => {
      enqueue("summary", async () => {
        const [list, runs, ended, attention] = await Promise.all([
          loadPostList(services, view),
          recentRunsWorthListing(services.syndication),
          status(),
          services.syndication.reads.postsNeedingAttention(),
        ]);
        const summaryView =
          single && last
            ? singleSummaryView(t, last.result, last.title ?? last.result.url, "live")
            : batchSummaryView(t, summary, services.mountPath);
        return renderView(res, "syndicate/events/summary.njk", {
          live: true,
          mountPath: services.mountPath,
          summaryView,
          single,
          // The summary above is the one account of the run: the status only says what is now.
          status: { ...ended, ended: null },
          announced: ended.ended?.runId,
          runs,
          total: list.total,
          filtered: isFiltered(view),
          // The retry comes with the summary that needs it, not only after a reload.
          needingAttention: attention.all,
          redirectUri,
          reloadHref: redirectUri,
          statusAt: services.syndication.reads.now().toISOString(),
        });
      });
      await queue;
      stream.close();
    },
  };
}
