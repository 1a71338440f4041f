// express-rate-limit for sign-in, public and authenticated plug-in routes. Over the limit: 429 with
// the standard RateLimit headers and the same error body as every other error.
import { type Store, rateLimit } from "express-rate-limit";
import type { RequestHandler } from "express";
import { HttpError } from "./http-error.ts";

export function limiter(options: { windowMs: number; limit: number; name: string; store?: Store }): RequestHandler {
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    ...(options.store ? { store: options.store } : {}),
    handler: (_req, _res, next, settings) => {
      const seconds = Math.ceil(settings.windowMs / 1000);
      next(
        new HttpError(429, "too_many_requests", `Too many requests; try again in ${seconds} seconds`, {
          "Retry-After": String(seconds),
        }),
      );
    },
  });
}
