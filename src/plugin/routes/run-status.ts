// GET {mountPath}/status: the page polls this every few seconds, so that it says when a run is in
// progress even when it was started elsewhere (the webhook, the command line, another tab), keeps
// "Syndicate all" disabled meanwhile, and says how that run ended.
import type { RequestHandler } from "express";
import { z } from "zod";
import { renderView } from "../page/render.ts";
import { runStatusView } from "../page/run-status.ts";
import { pageServices } from "../page/services.ts";
import type { RouteContext } from "./index.ts";
import { pagePath } from "./page.ts";

const querySchema = z.object({
  /** The run the page showed in progress, to tell when it has ended. */
  seen: z
    .string()
    .regex(/^\d{1,20}$/)
    .optional()
    .catch(undefined),
  page: z.coerce.number().int().min(1).max(1_000_000).catch(1).default(1),
});

export function runStatusRoute(context: RouteContext): RequestHandler {
  return async (req, res, next) => {
    try {
      const { syndication, mountPath } = pageServices(context, res);
      const query = querySchema.parse(req.query);
      const status = await runStatusView(syndication, query.seen);
      const html = await renderView(res, "syndicate/events/status.njk", {
        live: true,
        mountPath,
        status,
        reloadHref: pagePath(mountPath, query.page),
      });
      res.setHeader("Cache-Control", "no-store");
      res.type("html").send(html);
    } catch (error) {
      next(error);
    }
  };
}
