// A limit on the owner's costly page actions (connecting an account, looking up a feed, testing a
// notification), counted per signed-in credential: each reaches out to another server, so a page
// stuck in a loop, or a stolen session, cannot make this one hammer it.
import type { RequestHandler, Response } from "express";
import { rateLimit } from "express-rate-limit";
import { HttpError } from "../../contract/http-error.ts";

export function ownerActionLimiter(
  limits: { windowMs: number; limit: number },
  message: (seconds: number, res: Response) => string,
): RequestHandler {
  return rateLimit({
    ...limits,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    keyGenerator: (req) => req.auth?.credentialId ?? "unknown",
    handler: (_req, res, next, settings) => {
      const seconds = Math.ceil(settings.windowMs / 1000);
      next(
        new HttpError(429, "too_many_requests", message(seconds, res), { "Retry-After": String(seconds) }),
      );
    },
  });
}
