// Where a request names the one post to syndicate: the query's source_url, the body's source_url,
// or the body's syndication.source_url (as the peer accepts). Absent means "every awaiting post".
import type { Request } from "express";
import { z } from "zod";
import { badRequest } from "../server/http-error.ts";

const MAX_LENGTH = 2048;

const absoluteHttpUrl = z
  .string()
  .max(MAX_LENGTH, { error: `source_url must be at most ${MAX_LENGTH} characters` })
  .refine(
    (value) => {
      if (!URL.canParse(value)) return false;
      const { protocol } = new URL(value);
      return protocol === "http:" || protocol === "https:";
    },
    { error: "source_url must be an absolute http(s) URL" },
  );

function fromBody(body: unknown): unknown[] {
  if (!body || typeof body !== "object") return [];
  const record = body as Record<string, unknown>;
  const found: unknown[] = [];
  if (record.source_url !== undefined) found.push(record.source_url);
  const nested = record.syndication;
  if (nested && typeof nested === "object" && "source_url" in nested) {
    found.push((nested as Record<string, unknown>).source_url);
  }
  const flat = record["syndication.source_url"];
  if (flat !== undefined) found.push(flat);
  return found;
}

/** The one post's URL, or undefined for a batch. Throws 400 invalid_request when it is malformed or given twice. */
export function sourceUrlOf(req: Request): string | undefined {
  const given = [
    ...(req.query.source_url === undefined ? [] : [req.query.source_url]),
    ...fromBody(req.body),
  ];
  if (given.length === 0) return undefined;
  if (given.length > 1 || Array.isArray(given[0])) throw badRequest("source_url must be given once");
  if (typeof given[0] !== "string") throw badRequest("source_url must be a string");
  const parsed = absoluteHttpUrl.safeParse(given[0]);
  if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? "source_url is not valid");
  return parsed.data;
}
