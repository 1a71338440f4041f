// POST {mountPath}/posts/<id>/retry, …/confirm ("I posted it myself"), …/skip, …/remove-copy and
// …/send-again ("Undo a copy" and its way back, decision 0054), and
// …/follow-ups/retry (the copies’ edits and deletes, decision 0028) and …/follow-ups/replace ("Replace the
// thread", decision 0062), from the results page. htmx gets the
// results section re-rendered with the outcome announced; a form without JavaScript is sent back to
// the page with the outcome as a flash message. Undo a copy and Send again are also the endpoint's
// JSON API: an API client (a Bearer token or a form's access_token) gets the target's new state as
// JSON, or {"error", "error_description"} (docs/http-api.md).
import type { Request, RequestHandler, Response } from "express";
import { z } from "zod";
import { hasScope } from "../../contract/auth.ts";
import { type Flash, setFlash } from "../../contract/flash.ts";
import { errorCodeFor, insufficientScope } from "../../contract/http-error.ts";
import type { Translate } from "../../contract/i18n.ts";
import { prefersHtml } from "../../contract/negotiate.ts";
import type { Post } from "../../contract/posts.ts";
import {
  CopyNotRemovableError,
  TargetNotConfirmableError,
  TargetNotSkippableError,
} from "../../syndication/syndication.ts";
import type { PostResult } from "../../syndication/types.ts";
import { findPostById, type PostResultsView, postResultsView } from "../page/post-results.ts";
import { renderView } from "../page/render.ts";
import { type PageServices, pageServices, translatorOf } from "../page/services.ts";
import { targetJson } from "./post-page.ts";
import type { RouteContext } from "./route-context.ts";

const uidSchema = z.string().min(1).max(2048);

const retrySchema = z.object({
  /** Only these targets; all failed and unknown ones when absent. */
  target_uid: z.union([uidSchema.transform((uid) => [uid]), z.array(uidSchema).min(1).max(50)]).optional(),
});

const confirmSchema = z.object({
  target_uid: uidSchema,
  copy_url: z
    .string()
    .trim()
    .max(2048)
    .refine((value) => {
      if (!URL.canParse(value)) return false;
      const { protocol } = new URL(value);
      return protocol === "http:" || protocol === "https:";
    }),
});

function isHtmx(req: Request): boolean {
  return req.get("hx-request") === "true";
}

/** An API client of an action that answers JSON: neither htmx nor a browser asking for a page. */
function wantsJson(req: Request, action: { api?: boolean }): boolean {
  return action.api === true && !isHtmx(req) && !prefersHtml(req);
}

/**
 * The outcome as JSON: a refusal as {"error", "error_description"}, else the target the action was
 * about, as the results page's JSON shows it, with the run's result when it sent something.
 */
async function answerJson(
  res: Response,
  services: PageServices,
  post: Post,
  outcome: ActionOutcome,
  targetUid: string | undefined,
): Promise<void> {
  res.setHeader("Cache-Control", "no-store");
  const status = outcome.status ?? 200;
  if (status >= 400) {
    // 409 as the feeds' actions answer it: the target is not in the state the action needs.
    const error = status === 409 ? "conflict" : errorCodeFor(status);
    res.status(status).json({ error, error_description: outcome.flash.text });
    return;
  }
  const view: PostResultsView = await postResultsView(services, post);
  const target = view.row.targets.find((candidate) => candidate.uid === targetUid);
  res.status(status).json({
    url: post.url,
    target: target ? targetJson(target) : null,
    ...(outcome.result ? { result: outcome.result } : {}),
    message: outcome.flash.text,
  });
}

/** The outcome: the results section and an announcement for htmx, a flash and a redirect otherwise. */
async function answer(
  req: Request,
  res: Response,
  services: PageServices,
  postId: string,
  flash: Flash,
  status = 200,
): Promise<void> {
  const resultsHref = `${services.mountPath}/posts/${encodeURIComponent(postId)}`;
  if (!isHtmx(req)) {
    setFlash(res, flash);
    res.redirect(303, resultsHref);
    return;
  }
  const post = await findPostById(services, res, postId, { deleted: true });
  const view = await postResultsView(services, post);
  const html = await renderView(res, "syndicate/events/post-results.njk", {
    ...view,
    live: true,
    flash,
    // One date format on the page: with seconds, as attempts of one post often fall within a minute.
    formatPrecise: res.locals.formatPreciseDate,
    formatDate: res.locals.formatPreciseDate,
  });
  res.setHeader("Cache-Control", "no-store");
  res.status(status).type("html").send(html);
}

function requireUpdateScope(req: Request): void {
  if (!hasScope(req.auth, "update")) throw insufficientScope("update");
}

/** What an action decided: the flash to show, and the HTTP status when it is not 200. */
interface ActionOutcome {
  flash: Flash;
  status?: number;
  /** What a run the action made answered, for an API client. */
  result?: PostResult;
}

interface Action<Body> {
  /** The form's fields. */
  schema: z.ZodType<Body>;
  /** What a body that does not parse is told: a locale key, with its HTTP status. */
  invalid: { text: string; status: number };
  /** Whether the action applies to a deleted post (its copies' follow-ups). */
  deletedPosts?: boolean;
  /** An API client gets JSON (the endpoint's JSON API), not a redirect. */
  api?: boolean;
  act(args: { services: PageServices; post: Post; body: Body; t: Translate }): Promise<ActionOutcome>;
}

/**
 * The shape every action of the results page shares: the update scope, the post (404 when it does
 * not exist), the form parsed, and the outcome answered as htmx or as a flash and a redirect.
 */
function postAction<Body>(context: RouteContext, action: Action<Body>): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    requireUpdateScope(req);
    const t = translatorOf(res);
    const post = await findPostById(services, res, String(req.params.id), {
      deleted: action.deletedPosts ?? false,
    });
    const parsed = action.schema.safeParse(req.body ?? {});
    const outcome: ActionOutcome = parsed.success
      ? await action.act({ services, post, body: parsed.data, t })
      : { flash: { kind: "error", text: t(action.invalid.text) }, status: action.invalid.status };
    if (wantsJson(req, action)) {
      const uid = parsed.success ? targetUidOf(parsed.data) : undefined;
      await answerJson(res, services, post, outcome, uid);
      return;
    }
    await answer(req, res, services, post.id, outcome.flash, outcome.status);
  };
}

/** The one target a body names, for the JSON answer. */
function targetUidOf(body: unknown): string | undefined {
  const uid = body && typeof body === "object" && "target_uid" in body ? body.target_uid : undefined;
  return typeof uid === "string" ? uid : undefined;
}

const invalidTarget = { text: "syndicate.flash.invalidTarget", status: 400 };

const nameOf = (services: PageServices, uid: string) =>
  services.syndicators.find((s) => s.info.uid === uid)?.info.name ?? uid;

export function retryRoute(context: RouteContext): RequestHandler {
  return postAction(context, {
    schema: retrySchema,
    invalid: invalidTarget,
    async act({ services, post, body, t }) {
      const result = await services.syndication.runs.retry(post.url, body.target_uid, "manual");
      const failed = result.status === "failed" || result.status === "partial";
      return {
        flash: {
          kind: failed ? "error" : "success",
          text: t(`syndicate.flash.single.${result.status}`, { url: result.url }),
        },
      };
    },
  });
}

export function confirmRoute(context: RouteContext): RequestHandler {
  return postAction(context, {
    schema: confirmSchema,
    invalid: { text: "syndicate.flash.invalidCopyUrl", status: 422 },
    async act({ services, post, body, t }) {
      const { target_uid: targetUid, copy_url: copyUrl } = body;
      try {
        await services.syndication.copies.confirm(post.url, targetUid, copyUrl);
      } catch (error) {
        if (!(error instanceof TargetNotConfirmableError)) throw error;
        return { flash: { kind: "error", text: t("syndicate.flash.notConfirmable") }, status: 409 };
      }
      const target = nameOf(services, targetUid);
      return { flash: { kind: "success", text: t("syndicate.flash.confirmed", { target, url: copyUrl }) } };
    },
  });
}

const skipSchema = z.object({ target_uid: uidSchema });

/** "Skip for this post": the post stops naming the target, and nothing is sent to it. */
export function skipRoute(context: RouteContext): RequestHandler {
  return postAction(context, {
    schema: skipSchema,
    invalid: invalidTarget,
    async act({ services, post, body, t }) {
      try {
        await services.syndication.copies.skip(post.url, body.target_uid);
      } catch (error) {
        if (!(error instanceof TargetNotSkippableError)) throw error;
        return { flash: { kind: "error", text: t("syndicate.flash.notSkippable") }, status: 409 };
      }
      const target = nameOf(services, body.target_uid);
      return { flash: { kind: "success", text: t("syndicate.flash.skipped", { target }) } };
    },
  });
}

/** Another try of the copies' failed edits and deletes (all, or those of `target_uid`), now. */
export function retryFollowUpsRoute(context: RouteContext): RequestHandler {
  return postAction(context, {
    schema: retrySchema,
    invalid: invalidTarget,
    deletedPosts: true,
    async act({ services, post, body, t }) {
      const result = await services.syndication.runs.followPost(post.url, "manual", {
        retryFailed: true,
        ...(body.target_uid ? { targetUids: body.target_uid } : {}),
      });
      const failed = result.targets.some((target) => target.status === "failed");
      const done = result.targets.some((target) => target.status === "syndicated");
      const key = failed ? "flashFailed" : done ? "flashDone" : "flashNone";
      return {
        flash: { kind: failed ? "error" : done ? "success" : "info", text: t(`syndicate.followUps.${key}`) },
      };
    },
  });
}

/**
 * "Replace the thread" (decision 0062): an edit a service without edits keeps as sent is made by
 * deleting the copy's thread and sending the post anew, now (retried by the runs if it fails).
 */
export function replaceThreadRoute(context: RouteContext): RequestHandler {
  return postAction(context, {
    schema: skipSchema,
    invalid: invalidTarget,
    async act({ services, post, body, t }) {
      if (!(await services.syndication.copies.replaceThread(post.url, body.target_uid)))
        return { flash: { kind: "error", text: t("syndicate.followUps.notReplaceable") }, status: 409 };
      const done = await followedNow(services, post.url, body.target_uid);
      const target = nameOf(services, body.target_uid);
      return done
        ? { flash: { kind: "success", text: t("syndicate.followUps.flashReplaced", { target }) } }
        : { flash: { kind: "error", text: t("syndicate.followUps.flashReplaceWaits", { target }) } };
    },
  });
}

/** Carries out the post's follow-up for one target now; whether that target's change is done. */
async function followedNow(services: PageServices, postUrl: string, targetUid: string): Promise<boolean> {
  const result = await services.syndication.runs.followPost(postUrl, "manual", { targetUids: [targetUid] });
  return result.targets.some((target) => target.uid === targetUid && target.status === "syndicated");
}

/**
 * "Undo a copy": the copy on one target is deleted from its service now (retried by the runs if it
 * fails), the post stays, and the target waits as "removed by you".
 */
export function removeCopyRoute(context: RouteContext): RequestHandler {
  return postAction(context, {
    schema: skipSchema,
    invalid: invalidTarget,
    api: true,
    async act({ services, post, body, t }) {
      const unknown = await unknownTarget(services, post, body.target_uid, t);
      if (unknown) return unknown;
      try {
        await services.syndication.copies.removeCopy(post.url, body.target_uid);
      } catch (error) {
        if (!(error instanceof CopyNotRemovableError)) throw error;
        return { flash: { kind: "error", text: t("syndicate.flash.notRemovable") }, status: 409 };
      }
      const done = await followedNow(services, post.url, body.target_uid);
      const target = nameOf(services, body.target_uid);
      // Recorded either way: a deletion the service refused now is retried by the runs (202).
      return done
        ? { flash: { kind: "success", text: t("syndicate.flash.copyRemoved", { target }) } }
        : { flash: { kind: "error", text: t("syndicate.flash.copyRemovalWaits", { target }) }, status: 202 };
    },
  });
}

/** "Send again" after "Undo a copy": the post is sent to the target as a new copy, now. */
export function sendAgainRoute(context: RouteContext): RequestHandler {
  return postAction(context, {
    schema: skipSchema,
    invalid: invalidTarget,
    api: true,
    async act({ services, post, body, t }) {
      const unknown = await unknownTarget(services, post, body.target_uid, t);
      if (unknown) return unknown;
      if (!(await services.syndication.copies.sendAgain(post.url, body.target_uid)))
        return { flash: { kind: "error", text: t("syndicate.flash.notRemoved") }, status: 409 };
      const result = await services.syndication.runs.retry(post.url, [body.target_uid], "manual");
      const failed = result.status === "failed" || result.status === "partial";
      return {
        flash: {
          kind: failed ? "error" : "success",
          text: t(`syndicate.flash.single.${result.status}`, { url: result.url }),
        },
        result,
      };
    },
  });
}

/**
 * 404 for a target that is neither configured nor in the post's record: there is no such target
 * to undo or send again (a configured one without a copy is a 409: it exists, the copy does not).
 */
async function unknownTarget(
  services: PageServices,
  post: Post,
  uid: string,
  t: Translate,
): Promise<ActionOutcome | null> {
  if (services.syndicators.some((syndicator) => syndicator.info.uid === uid)) return null;
  const entries = await services.syndication.reads.entriesForPost(post.id);
  if (entries.some((entry) => entry.targetUid === uid)) return null;
  return { flash: { kind: "error", text: t("syndicate.flash.unknownTarget", { target: uid }) }, status: 404 };
}
