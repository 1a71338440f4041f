// Where a browser's form post goes back to: redirect_uri in the query, in the body, or in the body's
// syndication.redirect_uri (as the peer accepts). Only a local path is honoured; anything else could
// send the user to another site.
import type { Request } from "express";
import { z } from "zod";
import { badRequest } from "../../contract/http-error.ts";

const MAX_LENGTH = 2048;

// A path on this site: one leading "/", not "//" or "/\" (which browsers read as another host).
const localPath = z
  .string()
  .max(MAX_LENGTH)
  .regex(/^\/(?![/\\])[^\s]*$/);

function given(req: Request): unknown[] {
  const found: unknown[] = [];
  if (req.query.redirect_uri !== undefined) found.push(req.query.redirect_uri);
  const body: unknown = req.body;
  if (!body || typeof body !== "object" || Array.isArray(body)) return found;
  const record = body as Record<string, unknown>;
  if (record.redirect_uri !== undefined) found.push(record.redirect_uri);
  const nested = record.syndication;
  if (nested && typeof nested === "object" && "redirect_uri" in nested) {
    found.push((nested as Record<string, unknown>).redirect_uri);
  }
  if (record["syndication.redirect_uri"] !== undefined) found.push(record["syndication.redirect_uri"]);
  return found;
}

/** The local path to go back to, or undefined when none is given. Throws 400 invalid_request otherwise. */
export function redirectUriOf(req: Request): string | undefined {
  const values = given(req);
  if (values.length === 0) return undefined;
  const parsed = values.length === 1 ? localPath.safeParse(values[0]) : null;
  if (!parsed?.success) throw badRequest("redirect_uri must be one local path, such as /syndicate");
  return parsed.data;
}
