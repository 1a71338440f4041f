// express-rate-limit for sign-in, public and authenticated plug-in routes. Over the limit: 429 with
// the standard RateLimit headers and the same error body as every other error.
import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, MemoryStore, rateLimit, type Store } from "express-rate-limit";
import { HttpError } from "./http-error.ts";

export interface Limiter {
  middleware: RequestHandler;
  /** Gives back the hit a request took, for requests the limited routes did not answer after all. */
  giveBack: RequestHandler;
}

const clientKey = (req: Request) => ipKeyGenerator(req.ip ?? "unknown");

export function limiter(options: { windowMs: number; limit: number; store?: Store }): Limiter {
  const store = options.store ?? new MemoryStore();
  const middleware = rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    store,
    keyGenerator: clientKey,
    handler: (_req, _res, next, settings) => {
      const seconds = Math.ceil(settings.windowMs / 1000);
      next(
        new HttpError(429, "too_many_requests", `Too many requests; try again in ${seconds} seconds`, {
          "Retry-After": String(seconds),
        }),
      );
    },
  });
  const giveBack: RequestHandler = async (req, _res, next) => {
    try {
      await store.decrement(clientKey(req));
    } catch {
      // Counting is best effort; a store that cannot decrement must not fail the request.
    }
    next();
  };
  return { middleware, giveBack };
}
