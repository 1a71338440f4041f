// POST {mountPath}/posts/<id>/retry, …/confirm ("I posted it myself") and …/skip, from the results page. htmx gets the results
// section re-rendered with the outcome announced; a form without JavaScript is sent back to the page
// with the outcome as a flash message.
import type { Request, RequestHandler, Response } from "express";
import { z } from "zod";
import { hasScope } from "../../server/auth/types.ts";
import { type Flash, setFlash } from "../../server/flash.ts";
import { insufficientScope } from "../../server/http-error.ts";
import { TargetNotConfirmableError, TargetNotSkippableError } from "../../syndication/syndication.ts";
import { findPostById, postResultsView } from "../page/post-results.ts";
import { renderView } from "../page/render.ts";
import { type PageServices, pageServices, translatorOf } from "../page/services.ts";
import type { RouteContext } from "./index.ts";

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
  const post = await findPostById(services, res, postId);
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

export function retryRoute(context: RouteContext): RequestHandler {
  return async (req, res, next) => {
    try {
      const services = pageServices(context, res);
      requireUpdateScope(req);
      const t = translatorOf(res);
      const post = await findPostById(services, res, String(req.params.id));
      const parsed = retrySchema.safeParse(req.body ?? {});
      if (!parsed.success) {
        await answer(
          req,
          res,
          services,
          post.id,
          { kind: "error", text: t("syndicate.flash.invalidTarget") },
          400,
        );
        return;
      }
      const result = await services.syndication.retry(post.url, parsed.data.target_uid, "manual");
      const failed = result.status === "failed" || result.status === "partial";
      await answer(req, res, services, post.id, {
        kind: failed ? "error" : "success",
        text: t(`syndicate.flash.single.${result.status}`, { url: result.url }),
      });
    } catch (error) {
      next(error);
    }
  };
}

export function confirmRoute(context: RouteContext): RequestHandler {
  return async (req, res, next) => {
    try {
      const services = pageServices(context, res);
      requireUpdateScope(req);
      const t = translatorOf(res);
      const post = await findPostById(services, res, String(req.params.id));
      const parsed = confirmSchema.safeParse(req.body ?? {});
      if (!parsed.success) {
        const text = t("syndicate.flash.invalidCopyUrl");
        await answer(req, res, services, post.id, { kind: "error", text }, 422);
        return;
      }
      const { target_uid: targetUid, copy_url: copyUrl } = parsed.data;
      const name = services.syndicators.find((s) => s.info.uid === targetUid)?.info.name ?? targetUid;
      try {
        await services.syndication.confirm(post.url, targetUid, copyUrl);
      } catch (error) {
        if (!(error instanceof TargetNotConfirmableError)) throw error;
        await answer(
          req,
          res,
          services,
          post.id,
          { kind: "error", text: t("syndicate.flash.notConfirmable") },
          409,
        );
        return;
      }
      await answer(req, res, services, post.id, {
        kind: "success",
        text: t("syndicate.flash.confirmed", { target: name, url: copyUrl }),
      });
    } catch (error) {
      next(error);
    }
  };
}

const skipSchema = z.object({ target_uid: uidSchema });

/** "Skip for this post": the post stops naming the target, and nothing is sent to it. */
export function skipRoute(context: RouteContext): RequestHandler {
  return async (req, res, next) => {
    try {
      const services = pageServices(context, res);
      requireUpdateScope(req);
      const t = translatorOf(res);
      const post = await findPostById(services, res, String(req.params.id));
      const parsed = skipSchema.safeParse(req.body ?? {});
      if (!parsed.success) {
        await answer(
          req,
          res,
          services,
          post.id,
          { kind: "error", text: t("syndicate.flash.invalidTarget") },
          400,
        );
        return;
      }
      const targetUid = parsed.data.target_uid;
      const name = services.syndicators.find((s) => s.info.uid === targetUid)?.info.name ?? targetUid;
      try {
        await services.syndication.skip(post.url, targetUid);
      } catch (error) {
        if (!(error instanceof TargetNotSkippableError)) throw error;
        await answer(
          req,
          res,
          services,
          post.id,
          { kind: "error", text: t("syndicate.flash.notSkippable") },
          409,
        );
        return;
      }
      await answer(req, res, services, post.id, {
        kind: "success",
        text: t("syndicate.flash.skipped", { target: name }),
      });
    } catch (error) {
      next(error);
    }
  };
}
