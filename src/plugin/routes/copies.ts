// The public copies routes (decision 0039): links back from a site possekit does not write.
//   GET {mountPath}/copies?url=<post URL>   one post's copies: {url, copies: [{target, name, url, state, time}]}
//   GET {mountPath}/copies.json             every post's copies: {posts: {"<post URL>": [copy, …]}}
// No credentials: they show only what a visitor could see anyway (src/syndication/reads/public-copies.ts).
// Answers carry a strong ETag (If-None-Match → 304), Cache-Control and CORS for a page's script;
// errors are JSON whatever the client accepts. Rate limited per address (copies-limiter.ts).
import type { Request, RequestHandler, Response } from "express";
import { badRequest, notFound } from "../../contract/http-error.ts";
import type { PublicCopy } from "../../syndication/reads/public-copies.ts";
import type { Syndication } from "../../syndication/syndication.ts";
import { noneMatchHolds, strongEntityTag } from "../copies/entity-tag.ts";
import { syndicationOr501 } from "../responses/no-database.ts";
import { checkSourceUrl } from "../source-url.ts";
import type { RouteContext } from "./route-context.ts";

/** A minute: a cache or a page may reuse an answer that long; after it, a 304 is cheap. */
const CACHE_CONTROL = "public, max-age=60";

interface CopyJson {
  target: string;
  name: string;
  url: string;
  state: PublicCopy["state"];
  time: string;
}

const toJson = (copy: PublicCopy): CopyJson => ({ ...copy, time: copy.time.toISOString() });

function syndicationOf(context: RouteContext): Syndication {
  return syndicationOr501(context, "Copies need a database; this server runs without one");
}

/** Sends `value` as JSON with its tag, or 304 when the client holds it already. */
function sendTagged(req: Request, res: Response, value: unknown): void {
  const body = JSON.stringify(value);
  const tag = strongEntityTag(body);
  res.setHeader("ETag", tag);
  res.setHeader("Cache-Control", CACHE_CONTROL);
  if (noneMatchHolds(req.get("if-none-match"), tag)) {
    res.status(304).end();
    return;
  }
  res.status(200).type("application/json").send(body);
}

/** Public JSON: any page may read it (no credentials are ever involved). */
function publicJson(res: Response): void {
  res.locals.jsonErrors = true;
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Expose-Headers", "ETag");
}

export function copiesOfPostRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    publicJson(res);
    const syndication = syndicationOf(context);
    const given: unknown = req.query.url;
    if (given === undefined) throw badRequest("url=<the post's URL> is required");
    if (Array.isArray(given)) throw badRequest("url must be given once");
    const url = checkSourceUrl(given, "url");
    const found = await syndication.reads.publicCopiesOf(url);
    if (!found) throw notFound(`No post exists at ${url}`);
    sendTagged(req, res, { url: found.url, copies: found.copies.map(toJson) });
  };
}

export function everyPostsCopiesRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    publicJson(res);
    const posts = await syndicationOf(context).reads.everyPostsPublicCopies();
    sendTagged(req, res, {
      posts: Object.fromEntries([...posts].map(([url, copies]) => [url, copies.map(toJson)])),
    });
  };
}
