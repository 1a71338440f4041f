// An error that knows its HTTP answer. Thrown by the host and by plug-ins; the host's error handler
// turns it into {"error", "error_description"} for API clients or a localised page for browsers.
// It has the shape Indiekit's error handler reads too (`status`, `code`, `message`), so a plug-in
// that throws it answers the same under either host.
/**
 * The names of @indiekit/error's classes, by status: Indiekit's error page titles itself with the
 * localised `<name>.title`, so a page of ours under Indiekit is titled with the status's own words in
 * the reader's language instead of "HttpError".
 */
const INDIEKIT_ERROR_NAMES: Partial<Record<number, string>> = {
  400: "BadRequestError",
  401: "UnauthorizedError",
  403: "ForbiddenError",
  404: "NotFoundError",
  415: "UnsupportedMediaTypeError",
  501: "NotImplementedError",
};

export class HttpError extends Error {
  constructor(
    readonly status: number,
    /** OAuth/Micropub-style machine-readable code, e.g. "invalid_request". */
    readonly error: string,
    /** Human-readable description; safe to show. */
    readonly description: string,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
    /** Extra fields of the JSON answer, e.g. the `scope` an insufficient_scope error needs. */
    readonly fields: Record<string, string> = {},
  ) {
    super(description);
    this.name = INDIEKIT_ERROR_NAMES[status] ?? "HttpError";
  }

  /** The scope an insufficient_scope error names: Indiekit's error handler answers `error.scope`. */
  get scope(): string | undefined {
    return this.fields.scope;
  }

  /** The machine-readable code (the same as `error`): what Indiekit's error handler reads. */
  get code(): string {
    return this.error;
  }

  /** The description on a browser's page, in the reader's language: a locale key and its values. */
  pageMessage?: { key: string; values: Record<string, string> };

  /** Says which locale message stands for the description on a page (JSON keeps the English). */
  localized(key: string, values: Record<string, string> = {}): this {
    this.pageMessage = { key, values };
    return this;
  }
}

/** The OAuth/Micropub-style code for a status, for errors that come without one. */
const ERROR_CODES: Record<number, string> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "unprocessable_entity",
  429: "too_many_requests",
  500: "server_error",
  501: "not_implemented",
  503: "service_unavailable",
};

export function errorCodeFor(status: number): string {
  return ERROR_CODES[status] ?? (status >= 500 ? "server_error" : "invalid_request");
}

export const badRequest = (description: string) => new HttpError(400, "invalid_request", description);
export const unauthorized = (description: string) => new HttpError(401, "unauthorized", description);
export const forbidden = (description: string) => new HttpError(403, "forbidden", description);
/**
 * A valid credential without the scope a request needs: 403 here; the Micropub endpoint answers 401
 * as Micropub §3.8 says. Both name the scope, in the body and in WWW-Authenticate (RFC 6750 §3).
 */
export const insufficientScope = (scope: string, status: 401 | 403 = 403) =>
  new HttpError(
    status,
    "insufficient_scope",
    `This request needs the scope "${scope}"`,
    { "WWW-Authenticate": `Bearer realm="possekit", error="insufficient_scope", scope="${scope}"` },
    { scope },
  );
export const notFound = (description: string) => new HttpError(404, "not_found", description);
/**
 * 501 not_implemented: this server lacks a part the request needs (its database, its own
 * Micropub endpoint under a host that offers none), `description` saying which, in the reader's
 * language where a page asks. One answer for host and plug-ins alike.
 */
export const notImplemented = (description: string) => new HttpError(501, "not_implemented", description);
/** The 501 of everything that needs the server's database when it runs without one. */
export const noDatabase = notImplemented;
