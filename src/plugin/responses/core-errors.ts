// The one place the syndication core's errors become HTTP answers. Mounted after the endpoint's
// routes: Express 5 forwards a handler's rejection here, so routes throw (or let the core throw)
// and never catch to call next(). The host's error handler then answers JSON or a page.
import type { ErrorRequestHandler } from "express";
import { HttpError, notFound } from "../../contract/http-error.ts";
import { PostNotFoundError } from "../../contract/posts.ts";
import {
  SyndicationInProgressError,
  SyndicationShuttingDownError,
  TargetNotConfirmableError,
  TargetNotSkippableError,
} from "../../syndication/errors.ts";

/** The HTTP answer to an error of the core, or undefined for any other error. */
export function httpErrorOf(error: unknown): HttpError | undefined {
  if (error instanceof PostNotFoundError) return notFound(`No post exists at ${error.url}`);
  if (error instanceof SyndicationInProgressError)
    return new HttpError(409, "syndication_in_progress", "Syndication is already in progress", {
      "Retry-After": String(error.retryAfterSeconds),
    });
  if (error instanceof SyndicationShuttingDownError)
    return new HttpError(503, "service_unavailable", "The server is shutting down; try again in a moment");
  if (error instanceof TargetNotConfirmableError || error instanceof TargetNotSkippableError)
    return new HttpError(409, "conflict", error.message);
  return undefined;
}

export const coreErrors: ErrorRequestHandler = (error: unknown, _req, _res, next) => {
  next(httpErrorOf(error) ?? error);
};
