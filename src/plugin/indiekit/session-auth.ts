// Who made a request, under Indiekit: its authentication middleware keeps the token it verified in
// `request.session.access_token` and the token's scope, a space-separated string, in
// `request.session.scope` (packages/indiekit/lib/indieauth.js, authenticate()), whether the token
// came as a Bearer header, a form's access_token, ?token, or the signed-in cookie. The routes read
// `req.auth` (src/contract/auth.ts); this sets it from that session when possekit's host has not.
import { createHash } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { Authenticated, AuthMethod } from "../../contract/auth.ts";

interface IndiekitSession {
  access_token?: unknown;
  scope?: unknown;
}

/**
 * The request's credential as Indiekit verified it, or undefined when Indiekit let nothing through.
 * A cookie session keeps the scope its token had: unlike possekit's own sign-in, it is not all.
 */
export function authenticatedByIndiekit(req: Request, me: string): Authenticated | undefined {
  const session = (req as Request & { session?: IndiekitSession | null }).session;
  if (!session || typeof session.access_token !== "string" || typeof session.scope !== "string")
    return undefined;
  // A form's access_token (Indiekit deletes it from the body) or Indiekit's cookie: either way the
  // token's own scope, never possekit's all-scopes "session".
  const method: AuthMethod = req.headers.authorization
    ? "bearer"
    : typeof req.query.token === "string"
      ? "query"
      : "form";
  return {
    method,
    me,
    scope: session.scope.split(/\s+/).filter(Boolean),
    clientId: "indiekit",
    // Rate limits count per credential: a digest names it, the token itself is never kept.
    credentialId: `indiekit:${createHash("sha256").update(session.access_token).digest("hex").slice(0, 16)}`,
  };
}

/** Sets req.auth from Indiekit's session on the authenticated routes; leaves possekit's alone. */
export function indiekitSessionAuth(me: () => string) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (!req.auth) {
      const auth = authenticatedByIndiekit(req, me());
      if (auth) req.auth = auth;
    }
    next();
  };
}
