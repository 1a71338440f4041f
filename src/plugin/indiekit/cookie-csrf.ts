// Under Indiekit, a browser signed in to Indiekit carries its session cookie to our routes, and
// Indiekit lets any request with that cookie through, whatever site sent it; Indiekit checks no
// CSRF token of its own (possekit's host does, src/server/auth/authenticate.ts). So a change
// (POST) authenticated by that cookie is refused here unless it comes from the application's own
// origin: Sec-Fetch-Site or Origin say so, or, for a browser that sends neither, the CSRF token our
// page puts in its forms and htmx headers. A request that carried the token Indiekit verified
// (Authorization: Bearer, a form's access_token, ?token) is not a forgery: another site cannot
// know the token.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import { HttpError } from "../../contract/http-error.ts";
import { prefersHtml } from "../../contract/negotiate.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Indiekit's session (cookie-session): the token it verified and, documented by cookie-session,
 * `isNew`: true when the request brought no session cookie.
 */
interface IndiekitSession {
  access_token?: unknown;
  isNew?: unknown;
}

function sessionOf(req: Request): IndiekitSession | undefined {
  return (req as Request & { session?: IndiekitSession | null }).session ?? undefined;
}

/**
 * True when the credential Indiekit let through came with the request itself: no session cookie
 * came (Indiekit put the token it verified into a new session), or the Bearer header or ?token is
 * that very token. Anything else rode on the cookie.
 */
export function authenticatedByCookie(req: Request): boolean {
  const session = sessionOf(req);
  const token = session?.access_token;
  if (!session || typeof token !== "string" || token === "") return false;
  if (session.isNew === true) return false;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
  if (bearer !== undefined && sameSecret(bearer, token)) return false;
  const query = req.query.token;
  if (typeof query === "string" && sameSecret(query, token)) return false;
  return true;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

// The key of this process: a page rendered before a restart carries a token that no longer passes,
// but a browser that sends Origin or Sec-Fetch-Site (all current ones) passes on those.
const KEY = randomBytes(32);

/** The CSRF token for Indiekit's session: derived from its token, so it needs no storage. */
export function csrfTokenFor(req: Request): string | undefined {
  const token = sessionOf(req)?.access_token;
  if (typeof token !== "string" || token === "") return undefined;
  return createHmac("sha256", KEY).update(`possekit-csrf:${token}`).digest("base64url");
}

/** The origins the application answers at: Indiekit's application URL, and the request's own host. */
function ownOrigins(req: Request): string[] {
  const origins = [`${req.protocol}://${req.get("host")}`];
  const url = (req.app?.locals as { application?: { url?: unknown } } | undefined)?.application?.url;
  if (typeof url === "string") {
    try {
      origins.push(new URL(url).origin);
    } catch {
      // Not a URL: only the request's host counts.
    }
  }
  return origins;
}

/** Whether a cookie-authenticated change comes from the application's own pages. */
export function comesFromOwnOrigin(req: Request): boolean {
  const site = req.headers["sec-fetch-site"];
  // same-site is a sibling host (another subdomain), not ours.
  if (site !== undefined && site !== "same-origin") return false;
  const origin = req.headers.origin;
  if (origin !== undefined && !ownOrigins(req).includes(origin)) return false;
  if (site === "same-origin" || origin !== undefined) return true;
  const expected = csrfTokenFor(req);
  const header = req.headers["x-csrf-token"];
  const field = (req.body as Record<string, unknown> | undefined)?._csrf;
  const sent = typeof header === "string" ? header : typeof field === "string" ? field : undefined;
  return expected !== undefined && sent !== undefined && sameSecret(sent, expected);
}

/**
 * On the authenticated routes under Indiekit: gives our pages the CSRF token their forms send back,
 * and refuses a cookie-authenticated change from anywhere but the application's own origin.
 */
export function indiekitCookieCsrf(req: Request, res: Response, next: NextFunction): void {
  const csrf = csrfTokenFor(req);
  if (csrf) {
    req.csrfToken = csrf;
    res.locals.csrfToken = csrf;
  }
  if (SAFE_METHODS.has(req.method) || !authenticatedByCookie(req) || comesFromOwnOrigin(req)) {
    next();
    return;
  }
  const english = "This form has expired or was sent from another site. Reload the page and try again.";
  // Indiekit's error page shows the message as it is: in the reader's language for a browser.
  const t = res.locals.t as ((key: string) => string) | undefined;
  const message = prefersHtml(req) && typeof t === "function" ? t("error.formExpired") : english;
  next(new HttpError(403, "forbidden", message).localized("error.formExpired"));
}
