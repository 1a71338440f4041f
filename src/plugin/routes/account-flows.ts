// The routes of each account flow (Mastodon's OAuth), at {mountPath}/accounts/{type}/. Each
// connection makes requests to a server the owner names, so every credential has a small budget of
// them (10 in 10 minutes) on top of the endpoint's own rate limit. A flow's routes are built the
// first time they are asked for: the server they need is known only after init.
import type { Request, RequestHandler, Router } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import { HttpError } from "../../contract/http-error.ts";
import type { RouteContext } from "./route-context.ts";

export const CONNECTIONS_PER_WINDOW = 10;
export const CONNECTION_WINDOW_MS = 10 * 60 * 1000;

export function accountFlowRoutes(context: RouteContext): RequestHandler[] {
  const limited = rateLimit({
    windowMs: CONNECTION_WINDOW_MS,
    limit: CONNECTIONS_PER_WINDOW,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    keyGenerator: (req) => req.auth?.credentialId ?? ipKeyGenerator(req.ip ?? "unknown"),
    handler: (_req, _res, next, settings) => {
      const seconds = Math.ceil(settings.windowMs / 1000);
      next(
        new HttpError(429, "too_many_requests", `Too many connections; try again in ${seconds} seconds`, {
          "Retry-After": String(seconds),
        }).localized("accounts.oauth.tooMany", { seconds: String(seconds) }),
      );
    },
  });
  const built = new Map<string, Router>();
  // {mountPath}/accounts/{type} itself is the Accounts page's own form for the type: a flow has only
  // paths below it (…/authorize, …/callback).
  const flowFor = (req: Request) =>
    req.path === "/"
      ? undefined
      : context.accountFlows().find((candidate) => candidate.type === req.params.type);
  const dispatch: RequestHandler = (req, res, next) => {
    const flow = flowFor(req);
    const server = context.server();
    if (!flow || !server || context.indiekit()) return next();
    let routes = built.get(flow.type);
    if (!routes) {
      routes = flow.routes({
        server,
        basePath: `${context.mountPath}/accounts/${flow.type}`,
        accountsPath: `${context.mountPath}/accounts`,
        now: context.now,
      });
      built.set(flow.type, routes);
    }
    routes(req, res, next);
  };
  // Only requests for a flow's own routes count against its budget.
  const known: RequestHandler = (req, res, next) => (flowFor(req) ? limited(req, res, next) : next());
  return [known, dispatch];
}
