// PostgreSQL refuses U+0000 in text, so a NUL character in any query parameter or body field would
// surface as a database error (a 500) wherever that value reaches a query: a post URL looked up, a
// target uid retried. No client has a reason to send one, so it is refused at the edge with a 400.
import type { RequestHandler } from "express";
import { badRequest } from "../contract/http-error.ts";

/** Whether any string (or object key) in the value holds U+0000. Iterative: bodies may nest deeply. */
export function containsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") {
      if (item.includes("\u0000")) return true;
    } else if (Array.isArray(item)) {
      for (const inner of item) pending.push(inner);
    } else if (item !== null && typeof item === "object") {
      for (const [key, inner] of Object.entries(item)) {
        if (key.includes("\u0000")) return true;
        pending.push(inner);
      }
    }
  }
  return false;
}

/** After the body parsers: 400 for a NUL character in the query or the parsed body. */
export function refuseNulCharacters(): RequestHandler {
  return (req, _res, next) => {
    const where = containsNul(req.query) ? "query" : containsNul(req.body) ? "body" : undefined;
    if (where)
      next(badRequest(`The request's ${where} contains a NUL character (U+0000), which no field may hold`));
    else next();
  };
}
