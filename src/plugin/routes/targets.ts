// GET {mountPath}/targets: every configured target with what is known of it (JSON). POST
// {mountPath}/targets/check ("Check now"): asks them, without sending a post, and answers JSON, the
// page's targets section (htmx), or a redirect back to the page with the outcome (a form).
import type { Request, RequestHandler, Response } from "express";
import { z } from "zod";
import { hasScope } from "../../contract/auth.ts";
import { setFlash } from "../../contract/flash.ts";
import { insufficientScope } from "../../contract/http-error.ts";
import { prefersHtml } from "../../contract/negotiate.ts";
import type { TargetStatus } from "../../syndication/syndication.ts";
import { renderView } from "../page/render.ts";
import { pageServices, translatorOf } from "../page/services.ts";
import type { RouteContext } from "./route-context.ts";

const checkSchema = z.object({
  /** Only this target; every configured one when absent. */
  target_uid: z.string().min(1).max(2048).optional(),
});

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** A target as the JSON answers name it (snake_case, ISO times, null when unknown). */
export function targetJson(target: TargetStatus) {
  return {
    uid: target.uid,
    name: target.name,
    service: target.service,
    state: target.state,
    checkable: target.checkable,
    checked_at: iso(target.checkedAt),
    ok_at: iso(target.okAt),
    error: target.error,
    error_status: target.errorStatus,
    refused_since: iso(target.refusedSince),
    rate_limited_until: iso(target.rateLimitedUntil),
    setting: target.setting,
  };
}

export function targetsRoute(context: RouteContext): RequestHandler {
  return async (_req, res) => {
    const { syndication } = pageServices(context, res);
    res.setHeader("Cache-Control", "no-store");
    res.json({ targets: (await syndication.reads.targets()).map(targetJson) });
  };
}

/** The targets section of the page, as page.njk includes it. */
export function renderTargets(res: Response, mountPath: string, targets: TargetStatus[], announce?: string) {
  return renderView(res, "syndicate/events/targets.njk", { mountPath, targetStates: targets, announce });
}

export function checkTargetsRoute(context: RouteContext): RequestHandler {
  return async (req: Request, res) => {
    const services = pageServices(context, res);
    if (!hasScope(req.auth, "update")) throw insufficientScope("update");
    const t = translatorOf(res);
    const parsed = checkSchema.safeParse(req.body ?? {});
    const uid = parsed.success ? parsed.data.target_uid : undefined;
    const known = services.syndicators.some((s) => s.info.uid === uid);
    if (!parsed.success || (uid !== undefined && !known)) {
      res.status(400).json({
        error: "invalid_request",
        error_description: "target_uid must be the uid of a configured target",
      });
      return;
    }
    const targets = await services.syndication.runs.checkTargets(uid === undefined ? undefined : [uid]);
    const broken = targets.filter((target) => target.state !== "ok" && target.state !== "unchecked");
    const text =
      broken.length === 0
        ? t("syndicate.targets.allOk")
        : t("syndicate.targets.someBroken", { count: broken.length });
    res.setHeader("Cache-Control", "no-store");
    if (req.get("hx-request") === "true") {
      res.type("html").send(await renderTargets(res, services.mountPath, targets, text));
      return;
    }
    if (prefersHtml(req)) {
      setFlash(res, { kind: broken.length === 0 ? "success" : "error", text });
      res.redirect(303, `${services.mountPath}#targets-heading`);
      return;
    }
    res.json({ targets: targets.map(targetJson) });
  };
}
