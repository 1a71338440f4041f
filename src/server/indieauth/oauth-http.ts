// What every OAuth endpoint of the IndieAuth server shares: JSON answers never cached and open to
// any origin, form-encoded bodies, bearer tokens, and errors in OAuth's words (RFC 6749 §5.2).
import type { NextFunction, Request, Response } from "express";
import { z } from "zod";
import { badRequest, HttpError } from "../../contract/http-error.ts";

/** The body of revocation and introspection requests. */
export const tokenParameter = z.object({ token: z.string().max(8192).min(1) });

export const oauthError = (error: string, description: string, status = 400) =>
  new HttpError(status, error, description);

/** Token endpoints answer JSON whatever the Accept, never cached (RFC 6749 §5.1), open to any origin. */
export function apiResponse(req: Request, res: Response, next: NextFunction): void {
  res.locals.jsonErrors = true;
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Pragma", "no-cache");
  // Browser-based clients call these without cookies; the answer never depends on ours.
  res.setHeader("Access-Control-Allow-Origin", "*");
  if (req.method === "OPTIONS") {
    res.setHeader("Access-Control-Allow-Methods", "GET, POST");
    res.setHeader("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept");
    res.status(204).end();
    return;
  }
  next();
}

export function form(req: Request): Record<string, unknown> {
  if (!req.is("application/x-www-form-urlencoded"))
    throw badRequest("Send the request form-encoded (application/x-www-form-urlencoded)");
  return (req.body ?? {}) as Record<string, unknown>;
}

export function bearer(req: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  return match?.[1] ?? null;
}

/** "client_id is missing" or "scope is not valid": the first thing wrong with a request. */
export const firstIssue = (error: z.ZodError) => {
  const issue = error.issues[0];
  const field = issue?.path.join(".") ?? "";
  return issue?.code === "invalid_type" && issue.input === undefined
    ? `${field} is missing`
    : `${field} is not valid`;
};
