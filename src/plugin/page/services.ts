// What every route of the admin page needs from the server. Without a database there is no core and
// no post service, and every page answers 501 in the reader's language.

import type { Response } from "express";
import { type HttpError, noDatabase } from "../../contract/http-error.ts";
import type { Translate } from "../../contract/i18n.ts";
import type { Server, SyndicatorPlugin } from "../../contract/plugin.ts";
import type { PostSource } from "../../contract/post-source.ts";
import type { Syndication } from "../../syndication/syndication.ts";
import type { RouteContext } from "../routes/route-context.ts";

export interface PageServices {
  syndication: Syndication;
  posts: PostSource;
  server: Server;
  mountPath: string;
  /** Read at every request, so that targets added after start-up are listed. */
  syndicators: readonly SyndicatorPlugin[];
}

/** The request's translator (set by the host's locale middleware), or the key itself when missing. */
export function translatorOf(res: Response): Translate {
  const t: unknown = res.locals.t;
  return typeof t === "function" ? (t as Translate) : (key) => key;
}

/** The 501 of a page that needs the server's database, in the reader's language. */
export function noDatabasePage(res: Response, key = "syndicate.noDatabase"): HttpError {
  return noDatabase(translatorOf(res)(key));
}

/** Throws 501 with a localised message when the server runs without a database. */
export function pageServices(context: RouteContext, res: Response): PageServices {
  const syndication = context.syndication();
  const server = context.server();
  if (!syndication || !server?.postSource) {
    // Under Indiekit the plug-in has no database of its own to use (possekit's is the host's).
    throw noDatabasePage(res, context.indiekit() ? "syndicate.noDatabaseIndiekit" : "syndicate.noDatabase");
  }
  return {
    syndication,
    posts: server.postSource,
    server,
    mountPath: context.mountPath,
    syndicators: server.syndicators,
  };
}
