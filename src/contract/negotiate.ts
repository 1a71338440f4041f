import type { Request } from "express";

/** A browser asking for a page, rather than an API client (curl's and fetch's `*\/*` count as API). */
export function prefersHtml(req: Request): boolean {
  return req.accepts(["json", "html"]) === "html";
}
