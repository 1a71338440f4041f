// The public copies routes count every request per address (copies-options.ts), answered or not:
// they read the database for anyone who asks, so a stranger's flood ends at their own budget. Past
// it: 429 with Retry-After, as JSON.
import type { RequestHandler } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import { HttpError } from "../../contract/http-error.ts";
import type { CopiesOptions } from "./copies-options.ts";

export function copiesLimiter(options: CopiesOptions): RequestHandler {
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? "unknown"),
    handler: (_req, res, next, settings) => {
      const seconds = Math.ceil(settings.windowMs / 1000);
      res.locals.jsonErrors = true;
      next(
        new HttpError(429, "too_many_requests", `Too many requests; try again in ${seconds} seconds`, {
          "Retry-After": String(seconds),
        }),
      );
    },
  });
}
