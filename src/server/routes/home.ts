import type { RequestHandler } from "express";
import type { SessionManager } from "../auth/session.ts";
import { discoveryLinks, indieauthUrls } from "../indieauth/endpoints.ts";
import type { RunningHost } from "../running-host.ts";
import { FEED_PATHS, recentPosts } from "../stores/pages-routes.ts";

/** The home page advertises the Micropub endpoint; signed in, it is the admin's start page. */
export function homeRoute(host: RunningHost, sessions: SessionManager): RequestHandler {
  return async (req, res) => {
    const micropub = host.endpoints.find((endpoint) => endpoint.id === "micropub");
    const micropubUrl = micropub
      ? new URL(micropub.mountPath, host.hostConfig.application.url).href
      : undefined;
    if (micropubUrl) res.append("Link", `<${micropubUrl}>; rel="micropub"`);
    // IndieAuth discovery (§4.1): clients read the metadata link; older ones the endpoints' rels.
    const indieauthLinks = discoveryLinks(indieauthUrls(host.hostConfig.application.url));
    for (const link of indieauthLinks) res.append("Link", `<${link.href}>; rel="${link.rel}"`);
    const session = await sessions.read(req);
    if (session) {
      // Signed in: the layout shows the navigation, as on every admin page.
      res.locals.auth = { method: "session", me: session.me, scope: [], clientId: "session" };
      res.locals.csrfToken = session.csrf;
      // The page carries the session's CSRF token (sign-out form): never kept in a cache.
      res.setHeader("Cache-Control", "no-store");
    }
    // The pages store's home page: the recent posts, as an h-feed.
    const recent =
      host.hostConfig.store.type === "pages" && host.posts ? await recentPosts(host.posts) : undefined;
    res.render("home.njk", {
      signedIn: !!session,
      micropubUrl,
      indieauthLinks,
      plugins: host.plugins,
      recent,
      feeds: FEED_PATHS,
    });
  };
}
