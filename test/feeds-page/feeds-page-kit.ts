// What the Feeds page's tests share: the owner's forms as a browser sends them, a site's home page
// that names its feed, and the page's feeds as the database holds them.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TestServer } from "../helpers/server.ts";

export interface OwnerSession {
  cookie: string;
  csrf: string;
}

/**
 * GET `{server}/syndicate/feeds` (fields null), or POST `fields` to `{server}/syndicate/feeds/{path}`
 * as the signed-in owner, with the session's CSRF token; a redirect is not followed.
 */
export function feedsForm(
  serverUrl: string,
  session: OwnerSession,
  path: string,
  fields: Record<string, string | string[]> | null,
  headers: Record<string, string> = {},
): Promise<Response> {
  const url = `${serverUrl}/syndicate/feeds${path ? `/${path}` : ""}`;
  if (fields === null)
    return fetch(url, { headers: { cookie: session.cookie, accept: "text/html", ...headers } });
  const body = new URLSearchParams({ _csrf: session.csrf });
  for (const [name, value] of Object.entries(fields))
    for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
  return fetch(url, {
    method: "POST",
    headers: {
      cookie: session.cookie,
      accept: "text/html",
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    },
    body,
    redirect: "manual",
  });
}

/** A home page naming its feed in <link rel="alternate">, as blogs do. */
export function homePage(feedUrl: string, title = "A site") {
  return (_request: IncomingMessage, response: ServerResponse): void => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<link rel="alternate" type="application/atom+xml" title="${title}" href="${feedUrl}">
<link rel="stylesheet" href="/style.css"></head>
<body><h1>${title}</h1><p>Welcome.</p></body></html>`);
  };
}

/** The feeds added on the page, as stored: key, targets and interval. */
export async function pageFeedRows(
  server: TestServer,
): Promise<{ key: string; targets: unknown; pollSeconds: unknown }[]> {
  const database = server.host.database;
  if (!database) throw new Error("The server has no database");
  const { rows } = await database.query<{ key: string; options: Record<string, unknown> }>(
    "SELECT key, options FROM page_feeds ORDER BY key",
  );
  return rows.map((row) => ({
    key: row.key,
    targets: row.options.targets,
    pollSeconds: row.options.pollSeconds,
  }));
}

/** The page a form's 303 leads to, with the flash its answer set (a cookie, as a browser keeps it). */
export function followFlash(serverUrl: string, session: OwnerSession, answer: Response): Promise<Response> {
  const flash = answer.headers.getSetCookie().map((cookie) => cookie.split(";")[0]);
  const location = answer.headers.get("location") ?? "/syndicate/feeds";
  return fetch(new URL(location, serverUrl), {
    headers: { cookie: [session.cookie, ...flash].join("; "), accept: "text/html" },
  });
}
