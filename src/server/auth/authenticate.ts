// Who is asking: a signed-in session (with CSRF protection on state-changing requests), or an access
// token in the Authorization header, the form field access_token or the query parameter token.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { AuthMethod } from "../../contract/auth.ts";
import { badRequest, HttpError, unauthorized } from "../../contract/http-error.ts";
import { prefersHtml } from "../../contract/negotiate.ts";
import { secretsEqual } from "./constant-time.ts";
import type { SessionManager } from "./session.ts";
import type { TokenRegistry } from "./token-registry.ts";
import type { TokenIssuer } from "./tokens.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const ALL_SCOPES = ["create", "update", "delete", "draft", "media"];

function tokenCredential(req: Request): { method: AuthMethod; token: string } | null {
  const header = req.headers.authorization;
  // Another scheme (a proxy's Basic authentication in front of the server) carries no token of ours.
  if (header !== undefined && /^Bearer(\s|$)/i.test(header)) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) throw unauthorized('The Authorization header must be "Bearer <access token>"');
    // RFC 6750 §2 allows one way per request; two tokens could disagree (micropub.rocks case 805).
    const body: unknown = req.body;
    if (
      req.is("application/x-www-form-urlencoded") &&
      body &&
      typeof body === "object" &&
      "access_token" in body
    )
      throw badRequest(
        "Send the access token once: in the Authorization header or in access_token, not both",
      );
    return { method: "bearer", token: match[1] };
  }
  const body: unknown = req.body;
  if (
    req.is("application/x-www-form-urlencoded") &&
    body &&
    typeof body === "object" &&
    "access_token" in body
  ) {
    const value = (body as Record<string, unknown>).access_token;
    if (typeof value !== "string" || value === "")
      throw unauthorized("The form field access_token must be one token");
    return { method: "form", token: value };
  }
  const query = req.query.token;
  if (query !== undefined) {
    if (typeof query !== "string" || query === "")
      throw unauthorized("The query parameter token must be one token");
    return { method: "query", token: query };
  }
  return null;
}

/** A cookie-authenticated change must carry the session's CSRF token and, when sent, our own Origin. */
export function passesCsrf(req: Request, csrf: string, origin: string): boolean {
  const sentOrigin = req.headers.origin;
  if (
    sentOrigin !== undefined &&
    sentOrigin !== origin &&
    sentOrigin !== `${req.protocol}://${req.get("host")}`
  )
    return false;
  const header = req.headers["x-csrf-token"];
  // A multipart body is read by its route, after this check: a form without JavaScript that sends
  // a file (the compose page) carries the token in its action's query instead (docs/security.md).
  const field = req.is("multipart/form-data")
    ? req.query._csrf
    : (req.body as Record<string, unknown> | undefined)?._csrf;
  const sent = typeof header === "string" ? header : typeof field === "string" ? field : undefined;
  return sent !== undefined && secretsEqual(sent, csrf);
}

export function authenticate(options: {
  sessions: SessionManager;
  tokens: TokenIssuer;
  registry: TokenRegistry;
  baseUrl: string;
}): RequestHandler {
  const origin = new URL(options.baseUrl).origin;
  return async (req: Request, res: Response, next: NextFunction) => {
    // Caught here, not left to Express: countingFailures (rate-limit.ts) calls this middleware itself,
    // and a rejection would be lost there.
    try {
      // The session comes first: a malformed token beside a valid session does not refuse it.
      let credential: ReturnType<typeof tokenCredential> = null;
      let malformed: unknown = null;
      try {
        credential = tokenCredential(req);
      } catch (error) {
        malformed = error;
      }
      if (req.body && typeof req.body === "object") {
        // A token must never reach a handler that might store the body (Micropub properties).
        delete (req.body as Record<string, unknown>).access_token;
      }
      const session = await options.sessions.read(req);
      if (session && (SAFE_METHODS.has(req.method) || passesCsrf(req, session.csrf, origin))) {
        req.auth = {
          method: "session",
          me: session.me,
          scope: ALL_SCOPES,
          clientId: "session",
          credentialId: `session:${session.sid}`,
        };
        req.csrfToken = session.csrf;
        return next();
      }
      if (malformed) throw malformed;
      if (credential) {
        const verified = await options.tokens.verify(credential.token);
        if ("reason" in verified)
          throw unauthorized(verified.reason).localized(`error.token.${verified.code}`);
        if (!(await options.registry.admit(verified.claims)))
          throw unauthorized("The access token has been revoked").localized("error.token.revoked");
        req.auth = {
          method: credential.method,
          me: verified.claims.me,
          scope: verified.claims.scope,
          clientId: verified.claims.clientId,
          credentialId: `token:${verified.claims.id}`,
        };
        if (session) req.csrfToken = session.csrf;
        return next();
      }
      if (session) {
        throw new HttpError(
          403,
          "forbidden",
          "This form has expired or was sent from another site. Reload the page and try again.",
        ).localized("error.formExpired");
      }
      if (SAFE_METHODS.has(req.method) && prefersHtml(req)) {
        return res.redirect(303, `/session/login?redirect=${encodeURIComponent(req.originalUrl)}`);
      }
      throw unauthorized("Sign in, or send an access token (Authorization: Bearer, access_token or token)");
    } catch (error) {
      next(error);
    }
  };
}
