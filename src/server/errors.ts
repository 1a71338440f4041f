// The one place errors become responses: JSON {error, error_description} for API clients, a
// localised page for browsers, never a stack trace outside development.
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";
import { errorCodeFor, HttpError } from "../contract/http-error.ts";
import { prefersHtml } from "../contract/negotiate.ts";
import { PostNotFoundError } from "../contract/posts.ts";
import type { Logger } from "./logger.ts";

/** body-parser and http-errors set `type` and `status` on what they throw. */
function fromLibraryError(error: unknown): HttpError | null {
  if (!error || typeof error !== "object") return null;
  const { type, status } = error as { type?: unknown; status?: unknown };
  switch (type) {
    case "entity.too.large":
      return new HttpError(413, "payload_too_large", "The request body is larger than this server accepts");
    case "entity.parse.failed":
      return new HttpError(400, "invalid_request", "The request body is not valid for its Content-Type");
    case "encoding.unsupported":
    case "charset.unsupported":
      return new HttpError(
        415,
        "unsupported_media_type",
        "The request body's encoding or charset is not supported",
      );
    case "request.aborted":
      return new HttpError(400, "invalid_request", "The request was aborted");
    case "parameters.too.many":
      return new HttpError(413, "payload_too_large", "The request has too many parameters");
  }
  if (typeof status === "number" && status >= 400 && status < 500) {
    return new HttpError(status, errorCodeFor(status), "The request could not be understood");
  }
  // A post deleted by another request while this one was working on it (e.g. a retry from the page).
  if (error instanceof PostNotFoundError) return new HttpError(404, "not_found", error.message);
  // A malformed percent-encoding in the path.
  if (error instanceof URIError)
    return new HttpError(400, "invalid_request", "The URL is not correctly encoded");
  // A path that reads as "//host…" relative to a router's mount is parsed by req.query as a URL
  // with a host, and Node refuses an impossible host (e.g. "/micropub//a[b").
  if (error instanceof TypeError && (error as NodeJS.ErrnoException).code === "ERR_INVALID_URL")
    return new HttpError(400, "invalid_request", "The URL is not correctly formed");
  return null;
}

export function notFoundHandler(): RequestHandler {
  return (req, _res, next) =>
    next(
      new HttpError(404, "not_found", `Nothing is at ${req.path}`).localized("error.nothingAt", {
        path: req.path,
      }),
    );
}

export function errorHandler(logger: Logger, development: boolean): ErrorRequestHandler {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const known = error instanceof HttpError ? error : fromLibraryError(error);
    const httpError =
      known ?? new HttpError(500, "server_error", "Something went wrong on the server; it has been logged.");
    if (!known) {
      logger.error("Unhandled error", {
        method: req.method,
        path: req.path,
        error: error instanceof Error ? (development ? error.stack : error.message) : String(error),
      });
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(httpError.headers)) res.setHeader(name, value);
    if (httpError.status === 401 && !res.hasHeader("WWW-Authenticate"))
      res.setHeader("WWW-Authenticate", 'Bearer realm="possekit"');
    res.status(httpError.status);
    // API routes a browser may call too (the IndieAuth token endpoint) always answer JSON.
    if (prefersHtml(req) && res.locals.jsonErrors !== true && typeof res.locals.t === "function") {
      res.render("error.njk", {
        status: httpError.status,
        error: httpError.error,
        description: httpError.description,
        pageMessage: httpError.pageMessage ?? null,
      });
      return;
    }
    res.json({ ...httpError.fields, error: httpError.error, error_description: httpError.description });
  };
}
