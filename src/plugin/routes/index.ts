// The endpoint's routers. Authenticated: the page, POST (single or batch), the per-post page, the
// feeds' buttons.
// Public: the deploy webhooks (a request without a webhook signature falls through to the
// authenticated route at the same path), and the copies of posts a visitor may know of.
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { insufficientScope } from "../../contract/http-error.ts";
import { mayReadPosts } from "../../contract/reading-scopes.ts";
import type { RunSummary } from "../../syndication/types.ts";
import { copiesLimiter } from "../copies/copies-limiter.ts";
import { indiekitCookieCsrf } from "../indiekit/cookie-csrf.ts";
import { withIndiekitRequestToken } from "../indiekit/request-token.ts";
import { indiekitSessionAuth } from "../indiekit/session-auth.ts";
import { translateUnderIndiekit } from "../indiekit/translator.ts";
import { errorHelp } from "../page/error-help.ts";
import { progressText } from "../page/run-summary.ts";
import { translatorOf } from "../page/services.ts";
import { coreErrors } from "../responses/core-errors.ts";
import { accountFlowRoutes } from "./account-flows.ts";
import { accountsRoutes } from "./accounts.ts";
import {
  composePageRoute,
  composePreviewRoute,
  deletePageRoute,
  deleteRoute,
  editPageRoute,
  publishRoute,
  saveEditRoute,
} from "./compose.ts";
import { copiesOfPostRoute, everyPostsCopiesRoute } from "./copies.ts";
import { acceptFeedRoute, fetchFeedRoute, sendFeedEntryRoute } from "./feeds.ts";
import { feedsPageRoutes } from "./feeds-page.ts";
import { notificationsRoutes } from "./notifications.ts";
import { syndicatePageRoute } from "./page.ts";
import {
  confirmRoute,
  removeCopyRoute,
  replaceThreadRoute,
  retryFollowUpsRoute,
  retryRoute,
  sendAgainRoute,
  skipRoute,
} from "./post-actions.ts";
import { postByUrlRoute, postPageRoute } from "./post-page.ts";
import { postSyndicateRoute } from "./post-syndicate.ts";
import {
  checkTextRoute,
  previewJsonRoute,
  previewPageRoute,
  resetTextRoute,
  saveTextRoute,
  sendTextRoute,
  threadChoiceRoute,
} from "./preview.ts";
import type { RouteContext } from "./route-context.ts";
import { runStatusRoute } from "./run-status.ts";
import { checkTargetsRoute, targetsRoute } from "./targets.ts";
import { webhookRoute } from "./webhooks.ts";
import { webSubCallbackRoute } from "./websub.ts";

/**
 * The pages and their data show every post, drafts included: a token reads them only with create,
 * update or delete (a media- or draft-only token is for writing; docs/security.md).
 */
function readingNeedsAReadingScope(req: Request, _res: Response, next: NextFunction): void {
  if ((req.method === "GET" || req.method === "HEAD") && !mayReadPosts(req.auth))
    next(insufficientScope("update"));
  else next();
}

/**
 * Under Indiekit: req.auth from Indiekit's session, res.locals.t from our catalogue, and a change
 * riding on Indiekit's cookie refused unless it comes from the application's own origin.
 */
function indiekitAdapters(context: RouteContext): Router {
  const router = express.Router();
  router.use((req, res, next) => {
    const indiekit = context.indiekit();
    if (!indiekit) return next();
    const page = context.ownPage();
    indiekitSessionAuth(() => indiekit.me)(req, res, (error?: unknown) => {
      if (error) return next(error);
      // Words first: a refused forgery gets its page in the reader's language.
      const translated = () => translateUnderIndiekit(req, res, () => indiekitCookieCsrf(req, res, next));
      withIndiekitRequestToken(req, () => {
        if (!page) return translated();
        page.locals(req, res, (failed?: unknown) => (failed ? next(failed) : translated()));
      });
    });
  });
  return router;
}

export function authenticatedRoutes(context: RouteContext): Router {
  const router = express.Router();
  router.use(indiekitAdapters(context));
  router.use(readingNeedsAReadingScope);
  // Every page and fragment explains network codes the same way (decision 0051).
  router.use((_req, res, next) => {
    res.locals.errorHelp = errorHelp;
    // How far a batch has got, for a page opened while it runs (the run status).
    res.locals.progressText = (summary: RunSummary) => progressText(translatorOf(res), summary);
    // Which option holds a target's address (Mastodon's url, Bluesky's serviceUrl…), for that help.
    res.locals.addressSettingOf = (uid: string) =>
      context.server()?.syndicators.find((syndicator) => syndicator.info.uid === uid)?.addressSetting ?? null;
    // With the scheduler off nothing retries by itself: a failed target says it waits for a run.
    res.locals.scheduleOff = !context.options.schedule.enabled;
    // The origins of the configured feeds: their known entries get a Send button in their rows.
    res.locals.feedOrigins = context.feeds()?.feeds.map((feed) => feed.origin) ?? [];
    // The Accounts tab, where possekit's host keeps connected accounts (not under Indiekit).
    res.locals.accountsHref = context.server()?.accounts ? `${context.mountPath}/accounts` : null;
    // The Feeds tab, where feeds are added without a file (wherever possekit's host runs them).
    res.locals.feedsHref = context.feeds() && !context.indiekit() ? `${context.mountPath}/feeds` : null;
    // The Write tab and each own post's Edit and Delete, where the host's Micropub endpoint runs.
    res.locals.composeHref = context.server()?.micropub ? `${context.mountPath}/compose` : null;
    // The Notifications tab, where the page's channels can be saved (a database and a secret box).
    res.locals.notificationsHref = context.notifications()?.store.available
      ? `${context.mountPath}/notifications`
      : null;
    next();
  });
  router.post("/", postSyndicateRoute(context));
  router.post("/retry", postSyndicateRoute(context, { retryAll: true }));
  router.get("/", syndicatePageRoute(context));
  router.get("/status", runStatusRoute(context));
  router.get("/posts", postByUrlRoute(context));
  router.get("/posts/:id", postPageRoute(context));
  router.post("/posts/:id/retry", retryRoute(context));
  router.post("/posts/:id/confirm", confirmRoute(context));
  router.post("/posts/:id/skip", skipRoute(context));
  router.post("/posts/:id/remove-copy", removeCopyRoute(context));
  router.post("/posts/:id/send-again", sendAgainRoute(context));
  router.post("/posts/:id/follow-ups/retry", retryFollowUpsRoute(context));
  router.post("/posts/:id/follow-ups/replace", replaceThreadRoute(context));
  router.get("/compose", composePageRoute(context));
  router.post("/compose", publishRoute(context));
  router.post("/compose/preview", composePreviewRoute(context));
  router.get("/posts/:id/edit", editPageRoute(context));
  router.post("/posts/:id/edit", saveEditRoute(context));
  router.get("/posts/:id/delete", deletePageRoute(context));
  router.post("/posts/:id/delete", deleteRoute(context));
  router.get("/targets", targetsRoute(context));
  router.post("/targets/check", checkTargetsRoute(context));
  router.get("/preview", previewJsonRoute(context));
  router.get("/posts/:id/preview", previewPageRoute(context));
  router.post("/posts/:id/text/check", checkTextRoute(context));
  router.post("/posts/:id/text/reset", resetTextRoute(context));
  router.post("/posts/:id/text", saveTextRoute(context));
  router.post("/posts/:id/send", sendTextRoute(context));
  router.post("/posts/:id/thread", threadChoiceRoute(context));
  router.post("/posts/:id/send-to-feed-targets", sendFeedEntryRoute(context));
  router.post("/feeds/:id/fetch", fetchFeedRoute(context));
  router.post("/feeds/:id/accept", acceptFeedRoute(context));
  router.use("/accounts/:type", accountFlowRoutes(context));
  router.use(accountsRoutes(context));
  router.use(feedsPageRoutes(context));
  router.use(notificationsRoutes(context));
  router.use(coreErrors);
  return router;
}

export function publicRoutes(context: RouteContext): Router {
  const router = express.Router();
  router.use((req, res, next) => (context.indiekit() ? translateUnderIndiekit(req, res, next) : next()));
  router.use((req, res, next) => {
    const page = context.ownPage();
    if (page) page.assets(req, res, next);
    else next();
  });
  router.post("/", webhookRoute(context, "netlify"));
  router.post("/webhook/netlify", webhookRoute(context, "netlify"));
  router.post("/webhook/github", webhookRoute(context, "github"));
  router.post("/webhook", webhookRoute(context, "generic"));
  // Links back to the copies, for a site possekit does not write (docs/copies.md).
  const limited = copiesLimiter(context.options.copies);
  router.get("/copies", limited, copiesOfPostRoute(context));
  router.get("/copies.json", limited, everyPostsCopiesRoute(context));
  router.get("/websub/:id", webSubCallbackRoute(context));
  router.post("/websub/:id", webSubCallbackRoute(context));
  router.use(coreErrors);
  return router;
}
