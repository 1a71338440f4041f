// GET {mountPath}/posts/<id>: the results page of one post. GET {mountPath}/posts?url=<post URL>
// finds the post by its address and sends the browser to that page.
import type { RequestHandler } from "express";
import { z } from "zod";
import { HttpError } from "../../contract/http-error.ts";
import type { Post } from "../../contract/posts.ts";
import { findPostById, type PostResultsView, postResultsView } from "../page/post-results.ts";
import { pageServices, translatorOf } from "../page/services.ts";
import type { TargetView } from "../page/target-view.ts";
import type { RouteContext } from "./route-context.ts";

const byUrlSchema = z.object({ url: z.string().min(1).max(2048) });

export function postPageRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    // A deleted post's page stays: it shows what happened to its copies.
    const post = await findPostById(services, res, String(req.params.id), { deleted: true });
    const view = await postResultsView(services, post);
    const t = translatorOf(res);
    res.setHeader("Cache-Control", "no-store");
    res.vary("Accept");
    if (req.accepts(["html", "json"]) === "json") {
      res.json(postResultsJson(post, view));
      return;
    }
    res.render("syndicate/post.njk", {
      ...view,
      title: view.row.title ?? t("syndicate.post.untitled"),
      // One date format on the page: with seconds, as attempts of one post often fall within a minute.
      formatPrecise: res.locals.formatPreciseDate,
      formatDate: res.locals.formatPreciseDate,
    });
  };
}

/**
 * The page as JSON (Accept: application/json): each target's state and the history, each attempt
 * with what it sent (decision 0054).
 */
function postResultsJson(post: Post, view: PostResultsView) {
  return {
    url: post.url,
    deleted: post.deleted,
    targets: view.row.targets.map(targetJson),
    attempts: view.attempts.map((attempt) => ({
      target: attempt.targetUid,
      operation: attempt.operation,
      trigger: attempt.trigger,
      outcome: attempt.outcome,
      started_at: attempt.startedAt.toISOString(),
      finished_at: attempt.finishedAt?.toISOString() ?? null,
      url: attempt.url,
      copy_deleted: attempt.copyDeleted,
      error: attempt.error,
      own_text: attempt.ownText,
      sent: attempt.sent,
    })),
  };
}

/** One target of the results page's JSON (and of the JSON API's Undo a copy and Send again). */
export function targetJson(target: TargetView) {
  return {
    uid: target.uid,
    name: target.name,
    // "removed": the user deleted the copy and keeps the post ("Undo a copy"), as the list says.
    state: target.kind,
    removed_at: target.removedAt?.toISOString() ?? null,
    url: target.url ?? null,
  };
}

export function postByUrlRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    const t = translatorOf(res);
    const parsed = byUrlSchema.safeParse(req.query);
    if (!parsed.success) throw new HttpError(400, "invalid_request", t("syndicate.urlRequired"));
    const post = await services.posts.findByUrl(parsed.data.url);
    if (!post || post.deleted) {
      throw new HttpError(404, "not_found", t("syndicate.notFoundUrl", { url: parsed.data.url }));
    }
    res.redirect(303, `${services.mountPath}/posts/${encodeURIComponent(post.id)}`);
  };
}
