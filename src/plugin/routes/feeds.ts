// The Feeds section's buttons (decisions 0035, 0036 and 0040):
//
//   POST {mountPath}/feeds/<id>/fetch                reads the feed now, whatever its turn ("Fetch now")
//   POST {mountPath}/feeds/<id>/accept               a held feed takes its new ids: its entries are
//                                                    known under them, nothing is sent
//   POST {mountPath}/posts/<id>/send-to-feed-targets an entry the feed only knows (its first read,
//                                                    a late one) goes to the feed's targets, now
//
// The first two answer htmx with the Feeds section re-rendered and the outcome announced, a browser's
// form with a flash and a redirect back to the feed on the page, an API client with JSON. The third
// asks for the targets the ledger has never tried and then answers as the row's Syndicate button does
// (the run machinery: never a second copy).
import type { Request, RequestHandler, Response } from "express";
import { hasScope } from "../../contract/auth.ts";
import { type Flash, setFlash } from "../../contract/flash.ts";
import { HttpError, insufficientScope } from "../../contract/http-error.ts";
import type { Translate } from "../../contract/i18n.ts";
import { prefersHtml } from "../../contract/negotiate.ts";
import type { FeedSource, ReadSummary } from "../../sources/feeds/feed-source.ts";
import { requestedTargets } from "../../syndication/post-targets.ts";
import { feedHealth } from "../feed-sources.ts";
import { feedPostsHref, feedViews, findFeed, readOutcome } from "../page/feed-view.ts";
import { findPostById } from "../page/post-results.ts";
import { renderView } from "../page/render.ts";
import { type PageServices, pageServices, translatorOf } from "../page/services.ts";
import { postSyndicateRoute } from "./post-syndicate.ts";
import type { RouteContext } from "./route-context.ts";

interface FeedActionOutcome {
  flash: Flash;
  /** The read the action made; none when it read nothing. */
  summary: ReadSummary | null;
  status?: number;
}

type FeedAction = (feed: FeedSource, t: Translate, mountPath: string) => Promise<FeedActionOutcome>;

/** The feed the path names; 404 in the reader's language when no configured feed has that id. */
function feedOf(context: RouteContext, req: Request, t: Translate): FeedSource {
  const feed = findFeed(context.feeds(), String(req.params.id));
  if (!feed) throw new HttpError(404, "not_found", t("syndicate.feeds.notFound"));
  return feed;
}

async function answer(
  req: Request,
  res: Response,
  services: PageServices,
  context: RouteContext,
  feed: FeedSource,
  outcome: FeedActionOutcome,
): Promise<void> {
  const { mountPath } = services;
  const status = outcome.status ?? 200;
  res.setHeader("Cache-Control", "no-store");
  if (req.get("hx-request") === "true") {
    const feeds = await feedViews(context.feeds(), services.syndicators, mountPath);
    const html = await renderView(res, "syndicate/events/feeds.njk", {
      mountPath,
      feeds,
      announce: outcome.flash,
    });
    res.status(status).type("html").send(html);
    return;
  }
  if (prefersHtml(req)) {
    setFlash(res, outcome.flash);
    const id = String(req.params.id);
    res.redirect(303, `${mountPath}#feed-${encodeURIComponent(id)}`);
    return;
  }
  // Read after the action: the feed as it is now, only for the client that shows it.
  const report = await feed.report();
  res.status(status).json({
    feed: feedHealth(report),
    read: outcome.summary ? { outcome: outcome.summary.outcome, recorded: outcome.summary.recorded } : null,
    message: outcome.flash.text,
  });
}

function feedAction(context: RouteContext, act: FeedAction): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    if (!hasScope(req.auth, "update")) throw insufficientScope("update");
    const t = translatorOf(res);
    const feed = feedOf(context, req, t);
    await answer(req, res, services, context, feed, await act(feed, t, services.mountPath));
  };
}

/** "Fetch now": the feed read at once; what it recorded and sent, or why it could not be read. */
export function fetchFeedRoute(context: RouteContext): RequestHandler {
  return feedAction(context, async (feed, t, mountPath) => {
    const summary = await feed.fetchNow();
    const report = await feed.report();
    // A stopped feed (410 Gone) is not read again until the user changes the config.
    const status = summary.outcome === "skipped" && report.state === "stopped" ? 409 : 200;
    return { flash: readOutcome(summary, report, t, feedPostsHref(feed, mountPath)), summary, status };
  });
}

/** "Accept the new ids" of a held feed; 409 when the feed is not held (nothing to accept). */
export function acceptFeedRoute(context: RouteContext): RequestHandler {
  return feedAction(context, async (feed, t, mountPath) => {
    const summary = await feed.acceptCurrentEntries();
    const report = await feed.report();
    if (summary === null)
      return {
        flash: { kind: "error", text: t("syndicate.feeds.notHeld", { url: report.url }) },
        summary: null,
        status: 409,
      };
    const postsHref = feedPostsHref(feed, mountPath);
    if (summary.outcome !== "fetched") return { flash: readOutcome(summary, report, t, postsHref), summary };
    const text = [
      t("syndicate.feeds.accepted", { url: report.url }),
      ...(summary.recorded.new > 0
        ? [t("syndicate.feeds.acceptedNew", { count: summary.recorded.new })]
        : []),
    ].join(" ");
    return {
      flash: { kind: "success", text, link: { href: postsHref, text: t("syndicate.feeds.showEntries") } },
      summary,
    };
  });
}

/**
 * "Send" on an entry its feed only knows: the post asks for each of the feed's targets the ledger
 * has never tried (a target skipped or sent is left as it is), then runs as the row's Syndicate
 * button runs it. 409 for a post that is no entry of a configured feed.
 */
export function sendFeedEntryRoute(context: RouteContext): RequestHandler {
  const syndicate = postSyndicateRoute(context);
  return async (req, res, next) => {
    const services = pageServices(context, res);
    if (!hasScope(req.auth, "update")) throw insufficientScope("update");
    const t = translatorOf(res);
    const post = await findPostById(services, res, String(req.params.id));
    const feed = context.feeds()?.feeds.find((candidate) => candidate.origin === post.origin);
    if (!feed) throw new HttpError(409, "conflict", t("syndicate.feeds.send.notAnEntry"));
    const entries = (await services.syndication.reads.summaryForPosts([post.id])).get(post.id) ?? [];
    const tried = new Set(entries.map((entry) => entry.targetUid));
    const asked = new Set(requestedTargets(post));
    const add = feed.feed.targets.filter((uid) => !tried.has(uid) && !asked.has(uid));
    if (add.length > 0) await services.posts.update(post.url, { add: { "mp-syndicate-to": add } });
    const body: unknown = req.body;
    req.body = { ...(body && typeof body === "object" ? body : {}), source_url: post.url };
    await syndicate(req, res, next);
  };
}
