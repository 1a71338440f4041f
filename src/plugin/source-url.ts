// Where a request names the one post to syndicate: the query's source_url, the body's source_url,
// or the body's syndication.source_url (as the peer accepts) or syndication.url. Absent means
// "every awaiting post"; a body that names a post in a way not understood is refused, never a batch.
import type { Request } from "express";
import { z } from "zod";
import { badRequest } from "../contract/http-error.ts";

const MAX_LENGTH = 2048;

/** `name` is how the caller knows the value: source_url over HTTP, --url on the command line. */
const absoluteHttpUrl = (name: string) =>
  z
    .string()
    .max(MAX_LENGTH, { error: `${name} must be at most ${MAX_LENGTH} characters` })
    .refine(
      (value) => {
        if (!URL.canParse(value)) return false;
        const { protocol } = new URL(value);
        return protocol === "http:" || protocol === "https:";
      },
      { error: `${name} must be an absolute http(s) URL` },
    );

function fromBody(body: unknown): unknown[] {
  if (!body || typeof body !== "object") return [];
  // Read as "no source_url", a JSON array would start a run over every awaiting post.
  if (Array.isArray(body))
    throw badRequest(
      'The JSON body must be an object, such as {"source_url": "https://example.org/notes/1/"}',
    );
  const record = body as Record<string, unknown>;
  const found: unknown[] = [];
  if (record.source_url !== undefined) found.push(record.source_url);
  const nested = record.syndication;
  if (nested !== undefined) {
    // Whatever is said under `syndication` names a post; misread, it would start a batch.
    if (!nested || typeof nested !== "object" || Array.isArray(nested))
      throw badRequest(
        `syndication must be an object such as {"source_url": "https://example.org/notes/1/"}`,
      );
    for (const [key, value] of Object.entries(nested)) {
      if (key === "redirect_uri") continue; // where a browser goes back to: read by redirect-uri.ts
      if (!postKeys.includes(key))
        throw badRequest(`syndication.${key} is not understood; name the post with syndication.source_url`);
      found.push(value);
    }
  }
  for (const key of postKeys) {
    const flat = record[`syndication.${key}`];
    if (flat !== undefined) found.push(flat);
  }
  return found;
}

/** How a body may name the post under `syndication`: source_url, or url as Micropub clients say it. */
const postKeys = ["source_url", "url"];

/**
 * The peer's older `url` parameter, read as "no source_url", would turn a request for one post
 * into a run over every awaiting post; it is refused instead.
 */
function namesUrlInstead(req: Request): boolean {
  const body: unknown = req.body;
  const inBody = !!body && typeof body === "object" && (body as Record<string, unknown>).url !== undefined;
  return req.query.url !== undefined || inBody;
}

/** Checks one given post URL. Throws 400 invalid_request saying what is wrong with it. */
export function checkSourceUrl(value: unknown, name = "source_url"): string {
  if (typeof value !== "string") throw badRequest(`${name} must be a string`);
  const parsed = absoluteHttpUrl(name).safeParse(value);
  if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? `${name} is not valid`);
  return parsed.data;
}

/** The one post's URL, or undefined for a batch. Throws 400 invalid_request when it is malformed or given twice. */
export function sourceUrlOf(req: Request): string | undefined {
  const given = [
    ...(req.query.source_url === undefined ? [] : [req.query.source_url]),
    ...fromBody(req.body),
  ];
  if (given.length === 0) {
    if (namesUrlInstead(req))
      throw badRequest(
        "Name the post with source_url; url is not a parameter of this endpoint (send neither to syndicate every awaiting post)",
      );
    return undefined;
  }
  if (given.length > 1 || Array.isArray(given[0])) throw badRequest("source_url must be given once");
  return checkSourceUrl(given[0]);
}
