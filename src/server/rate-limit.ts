// express-rate-limit for the server's three kinds of traffic. Over a limit: 429 with the standard
// RateLimit headers and the same error body as every other error.
// - Authenticated requests count per credential (session or token id), after authentication: no
//   stranger can spend the owner's budget, even when every client shares one address behind a proxy.
// - Requests that fail authentication, and failed requests to public routes (a webhook whose
//   signature does not verify), count per address in their own buckets, and only once they failed:
//   a request that proves who sent it is never refused because of unsigned traffic.
// - Sign-in attempts count per address.
import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import { ipKeyGenerator, MemoryStore, rateLimit, type Store } from "express-rate-limit";
import { HttpError } from "../contract/http-error.ts";

export interface Limiter {
  /** Counts the request; past the limit answers 429 instead of going on. */
  middleware: RequestHandler;
  /**
   * Error middleware: a request that failed with a 4xx is counted, and past the limit the 429
   * replaces its answer. Requests that succeed are never counted.
   */
  countFailure: ErrorRequestHandler;
}

export const addressKey = (req: Request) => ipKeyGenerator(req.ip ?? "unknown");

/** Authenticated requests: the credential the authentication middleware found. */
export const credentialKey = (req: Request) => req.auth?.credentialId ?? `address:${addressKey(req)}`;

export function limiter(options: {
  windowMs: number;
  limit: number;
  store?: Store;
  key?: (req: Request) => string;
}): Limiter {
  const middleware = rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    store: options.store ?? new MemoryStore(),
    keyGenerator: options.key ?? addressKey,
    handler: (_req, _res, next, settings) => {
      const seconds = Math.ceil(settings.windowMs / 1000);
      next(
        new HttpError(429, "too_many_requests", `Too many requests; try again in ${seconds} seconds`, {
          "Retry-After": String(seconds),
        }),
      );
    },
  });
  const countFailure: ErrorRequestHandler = (error, req, res, next) => {
    const failed = error instanceof HttpError && error.status >= 400 && error.status < 500;
    if (!failed || error.status === 429 || res.headersSent) return next(error);
    void middleware(req, res, (limited?: unknown) => next(limited ?? error));
  };
  return { middleware, countFailure };
}

/** Runs `handler`, passing what it fails with through `failures` (see Limiter.countFailure). */
export function countingFailures(handler: RequestHandler, failures: Limiter): RequestHandler {
  return (req, res, next) => {
    handler(req, res, (error?: unknown) => {
      if (error === undefined || error === "route" || error === "router") return next(error);
      failures.countFailure(error, req, res, next);
    });
  };
}
