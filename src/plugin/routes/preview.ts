// The preview of a post and the user's own words per target (decision 0025):
//   GET  {mountPath}/preview?url=<post URL>      JSON: what each target would receive now
//   GET  {mountPath}/posts/<id>/preview          the page (htmx: one target's section, ?target_uid=)
//   POST {mountPath}/posts/<id>/text/check       htmx, live: the count against the limit (nothing saved)
//   POST {mountPath}/posts/<id>/text             save the text for one target (refused when over)
//   POST {mountPath}/posts/<id>/text/reset       back to the target's template
//   POST {mountPath}/posts/<id>/send             save the text shown (when it differs) and send it now
//   POST {mountPath}/posts/<id>/thread           a thread, one cut post, or the account's setting (decision 0058)
// htmx gets the target's section re-rendered; a form without JavaScript is sent back to the page, or
// shown it again with the refusal and the text as typed.
import type { Request, RequestHandler, Response } from "express";
import { z } from "zod";
import { hasScope } from "../../contract/auth.ts";
import { setFlash } from "../../contract/flash.ts";
import { insufficientScope } from "../../contract/http-error.ts";
import type { Translate } from "../../contract/i18n.ts";
import { prefersHtml } from "../../contract/negotiate.ts";
import type { Post } from "../../contract/posts.ts";
import { MAX_OWN_TEXT_LENGTH, siteTexts } from "../../syndication/copies/own-texts.ts";
import type { TargetResult } from "../../syndication/types.ts";
import { findPostById } from "../page/post-results.ts";
import {
  type PreviewPageView,
  type PreviewTargetView,
  previewJson,
  previewPageView,
} from "../page/preview-view.ts";
import { renderView } from "../page/render.ts";
import { type PageServices, pageServices, translatorOf } from "../page/services.ts";
import { shownCopy } from "../page/shown-copy.ts";
import { keepTypedText, normaliseText, refusalOf, typedTextForm } from "../page/typed-text.ts";
import type { RouteContext } from "./route-context.ts";

const previewQuery = z.strictObject({ url: z.string().trim().min(1).max(2048) });
const targetQuery = z.object({ target_uid: z.string().min(1).max(2048).optional() });
const uid = z.string().min(1).max(2048);
const textForm = typedTextForm;
const resetForm = z.object({ target_uid: uid });
const threadForm = z.object({ target_uid: uid, thread: z.enum(["account", "on", "off"]) });

const isHtmx = (req: Request) => req.get("hx-request") === "true";

/** Errors of the JSON answer are JSON, whatever the client accepts. */
function jsonError(res: Response, status: number, error: string, description: string): void {
  res.status(status).json({ error, error_description: description });
}

export function previewJsonRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    const parsed = previewQuery.safeParse(req.query);
    if (!parsed.success) {
      jsonError(
        res,
        400,
        "invalid_request",
        "url=<the post's URL> is required, once, up to 2,048 characters",
      );
      return;
    }
    const post = await services.posts.findByUrl(parsed.data.url);
    if (!post || post.deleted) {
      jsonError(res, 404, "not_found", `No post exists at ${parsed.data.url}`);
      return;
    }
    const targets = await services.syndication.copies.preview(post);
    res.setHeader("Cache-Control", "no-store");
    res.json({ url: post.url, targets: targets.map(previewJson) });
  };
}

async function renderPage(res: Response, view: PreviewPageView, status = 200): Promise<void> {
  const t = translatorOf(res);
  res.setHeader("Cache-Control", "no-store");
  res.status(status).render("syndicate/preview.njk", {
    ...view,
    title: t("syndicate.preview.title", { title: view.post.title ?? t("syndicate.post.untitled") }),
  });
}

async function renderSection(res: Response, view: PreviewPageView, target: PreviewTargetView, status = 200) {
  const html = await renderView(res, "syndicate/_preview-target.njk", { ...view, target });
  res.setHeader("Cache-Control", "no-store");
  res.status(status).type("html").send(html);
}

export function previewPageRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    const post = await findPostById(services, res, String(req.params.id));
    const view = await previewPageView(services, post);
    const only = targetQuery.safeParse(req.query).data?.target_uid;
    const target = only ? view.targets.find((candidate) => candidate.uid === only) : undefined;
    if (isHtmx(req) && target) {
      await renderSection(res, view, target);
      return;
    }
    await renderPage(res, view);
  };
}

/** The outcome of a save or reset: the section (htmx), or the page again or a redirect (a form). */
async function answer(
  req: Request,
  res: Response,
  services: PageServices,
  post: Post,
  targetUid: string,
  outcome: {
    kind: "success" | "error" | "warning" | "info";
    text: string;
    href?: string;
    draft?: string;
    status?: number;
  },
): Promise<void> {
  const view = await previewPageView(services, post);
  const index = view.targets.findIndex((target) => target.uid === targetUid);
  const found = view.targets[index];
  if (!found) {
    setFlash(res, { kind: "error", text: translatorOf(res)("syndicate.preview.unknownTarget") });
    res.redirect(303, view.previewHref);
    return;
  }
  // A refused text is shown as typed, with its own count, for the user to fix.
  const draftPreview =
    outcome.draft === undefined
      ? undefined
      : services.syndication.copies.previewText(post, targetUid, outcome.draft);
  const target: PreviewTargetView = {
    ...found,
    // The user's own words are one post, never a thread.
    ...(draftPreview
      ? { preview: draftPreview, shown: shownCopy(draftPreview.text ?? ""), shownThread: [] }
      : {}),
    ...(outcome.draft === undefined ? {} : { draft: outcome.draft }),
    message: { kind: outcome.kind, text: outcome.text, ...(outcome.href ? { href: outcome.href } : {}) },
  };
  if (isHtmx(req)) {
    await renderSection(res, view, target, outcome.status);
    return;
  }
  if (outcome.kind === "error") {
    view.targets[index] = target;
    await renderPage(res, view, outcome.status);
    return;
  }
  // The copy's address is shown in its section: a flash links only to this server's pages.
  setFlash(res, { kind: outcome.kind, text: outcome.text });
  res.redirect(303, `${view.previewHref}#${target.anchor}`);
}

export function checkTextRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    const post = await findPostById(services, res, String(req.params.id));
    const parsed = textForm.safeParse(req.body ?? {});
    const preview = parsed.success
      ? services.syndication.copies.previewText(post, parsed.data.target_uid, normaliseText(parsed.data.text))
      : null;
    const anchor = typeof req.query.anchor === "string" ? req.query.anchor.replace(/[^\w-]/g, "") : "";
    const service = parsed.success
      ? services.syndicators.find((s) => s.info.uid === parsed.data.target_uid)?.info
      : undefined;
    // The count for the text box, and the copy as the service shows it beside it.
    const html = await renderView(res, "syndicate/_preview-check.njk", {
      preview,
      anchor,
      target: {
        anchor,
        preview,
        shown: shownCopy(preview?.text ?? ""),
        service: service?.service?.name ?? service?.name ?? "",
      },
    });
    res.setHeader("Cache-Control", "no-store");
    res.status(200).type("html").send(html);
  };
}

/** What a route that changes a post's own words works with. */
interface OwnTextRequest {
  services: PageServices;
  t: Translate;
  post: Post;
}

/** A route that changes a post's own words: it needs the update scope and the post of the path. */
function ownTextRoute(
  context: RouteContext,
  handle: (req: Request, res: Response, on: OwnTextRequest) => Promise<void>,
): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    if (!hasScope(req.auth, "update")) throw insufficientScope("update");
    const t = translatorOf(res);
    const post = await findPostById(services, res, String(req.params.id));
    await handle(req, res, { services, t, post });
  };
}

export function saveTextRoute(context: RouteContext): RequestHandler {
  return ownTextRoute(context, async (req, res, { services, t, post }) => {
    const parsed = textForm.safeParse(req.body ?? {});
    if (!parsed.success) {
      const targetUid = typeof req.body?.target_uid === "string" ? req.body.target_uid : "";
      const text = t("syndicate.preview.invalidText", { max: MAX_OWN_TEXT_LENGTH });
      await answer(req, res, services, post, targetUid, { kind: "error", text, status: 400 });
      return;
    }
    const targetUid = parsed.data.target_uid;
    const text = normaliseText(parsed.data.text);
    const name = services.syndicators.find((s) => s.info.uid === targetUid)?.info.name ?? targetUid;
    const preview = services.syndication.copies.previewText(post, targetUid, text);
    const refusal = refusalOf(t, name, text, preview);
    if (refusal) {
      await answer(req, res, services, post, targetUid, {
        kind: "error",
        text: refusal,
        draft: text,
        status: 422,
      });
      return;
    }
    // A thread's first post, saved as shown, is not the user's words for the whole copy: saving it
    // would send that post alone.
    const shown = (await services.syndication.copies.preview(post)).find(
      (target) => target.uid === targetUid,
    );
    if (!(shown?.preview?.thread && shown.preview.text === text)) {
      await services.syndication.copies.saveOwnText(post, targetUid, text);
    }
    // A copy that is out already follows its post: the save edits it (or the service cannot).
    const view = (await previewPageView(services, post)).targets.find((target) => target.uid === targetUid);
    const live = view?.state === "syndicated";
    await answer(req, res, services, post, targetUid, {
      kind: "success",
      text: live
        ? t(view?.canEdit ? "syndicate.preview.savedLive" : "syndicate.preview.savedCannotEdit", {
            target: name,
          })
        : t("syndicate.preview.saved", { target: name }),
    });
  });
}

export function resetTextRoute(context: RouteContext): RequestHandler {
  return ownTextRoute(context, async (req, res, { services, t, post }) => {
    const parsed = resetForm.safeParse(req.body ?? {});
    const targetUid = parsed.success ? parsed.data.target_uid : "";
    const name = services.syndicators.find((s) => s.info.uid === targetUid)?.info.name ?? targetUid;
    if (parsed.success) await services.syndication.copies.resetOwnText(post, targetUid);
    // The post's properties may have changed (a Micropub client's text removed): read it again.
    const current = await findPostById(services, res, post.id);
    // A post from a feed whose site chose this target's text gets that again, not the template's.
    const done = siteTexts(current).has(targetUid) ? "resetDoneSite" : "resetDone";
    await answer(req, res, services, current, targetUid, {
      kind: "success",
      text: t(`syndicate.preview.${done}`, { target: name }),
    });
  });
}

/**
 * The thread choice for one target of this post: "on" or "off" saved, "account" removed, and the
 * section shown again as the target now sends it. A client asking for JSON gets the target's preview.
 */
export function threadChoiceRoute(context: RouteContext): RequestHandler {
  return ownTextRoute(context, async (req, res, { services, t, post }) => {
    const parsed = threadForm.safeParse(req.body ?? {});
    const targetUid = parsed.success ? parsed.data.target_uid : String(req.body?.target_uid ?? "");
    const syndicator = services.syndicators.find((s) => s.info.uid === targetUid);
    const json = !isHtmx(req) && !prefersHtml(req);
    const name = syndicator?.info.name ?? targetUid;
    // A choice for a target the post does not name would be kept unseen.
    const named = (await services.syndication.copies.preview(post)).some(
      (target) => target.uid === targetUid,
    );
    const refusal = !parsed.success
      ? t("syndicate.preview.threadChoice.invalid")
      : !named
        ? t("syndicate.preview.unknownTarget")
        : !syndicator?.threads
          ? t("syndicate.preview.threadChoice.cannot", { target: name })
          : undefined;
    if (refusal || !parsed.success) {
      if (json) return jsonError(res, 400, "invalid_request", refusal ?? "");
      await answer(req, res, services, post, targetUid, { kind: "error", text: refusal ?? "", status: 400 });
      return;
    }
    const choice = parsed.data.thread;
    if (choice === "account") await services.syndication.copies.resetThreadChoice(post, targetUid);
    else await services.syndication.copies.saveThreadChoice(post, targetUid, choice === "on");
    if (json) {
      const now = (await services.syndication.copies.preview(post)).find(
        (target) => target.uid === targetUid,
      );
      res.setHeader("Cache-Control", "no-store");
      res.json(now ? previewJson(now) : null);
      return;
    }
    const key = { account: "savedAccount", on: "savedOn", off: "savedOff" }[choice];
    await answer(req, res, services, post, targetUid, {
      kind: "success",
      text: t(`syndicate.preview.threadChoice.${key}`, { target: name }),
    });
  });
}

/** What one target's send came to, in words: the copy's address, or why it was not made. */
function sentMessage(t: Translate, name: string, result: TargetResult | undefined) {
  if (result?.status === "syndicated" || result?.status === "already_syndicated")
    return {
      kind: "success" as const,
      text: t("syndicate.preview.sentNow", { target: name }),
      href: result.url,
    };
  if (result?.status === "failed")
    return {
      kind: "error" as const,
      text: t("syndicate.preview.sendFailed", { target: name, error: result.error ?? "" }),
    };
  return { kind: "warning" as const, text: t("syndicate.preview.sendWaits", { target: name }) };
}

/**
 * "Send this": the text the preview shows is saved when it differs from the target's (refused like
 * a save), then the post is sent now, this target made due even if it was waiting for its next try.
 */
export function sendTextRoute(context: RouteContext): RequestHandler {
  return ownTextRoute(context, async (req, res, { services, t, post }) => {
    const parsed = textForm.safeParse(req.body ?? {});
    const targetUid = parsed.success ? parsed.data.target_uid : String(req.body?.target_uid ?? "");
    if (!parsed.success) {
      const text = t("syndicate.preview.invalidText", { max: MAX_OWN_TEXT_LENGTH });
      await answer(req, res, services, post, targetUid, { kind: "error", text, status: 400 });
      return;
    }
    const typed = { targetUid, text: normaliseText(parsed.data.text) };
    const kept = await keepTypedText(services, t, post, typed);
    if (kept.kind === "refused") {
      await answer(req, res, services, post, targetUid, {
        kind: "error",
        text: t("syndicate.preview.notSent", { reason: kept.text }),
        draft: typed.text,
        status: 422,
      });
      return;
    }
    const name = services.syndicators.find((s) => s.info.uid === targetUid)?.info.name ?? targetUid;
    const result = await services.syndication.runs.retry(post.url, [targetUid]);
    const current = await findPostById(services, res, post.id);
    const mine = result.targets.find((target) => target.uid === targetUid);
    await answer(req, res, services, current, targetUid, sentMessage(t, name, mine));
  });
}
