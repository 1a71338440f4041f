// CSRF (decision 0003, decision 0031): every POST route the server has, found by walking the Express router
// rather than listed by hand, refuses a session cookie without the CSRF token or with a near miss,
// and gets past the check with the right one. A route added later is checked without anyone
// remembering to add it here; only the routes named in NOT_COOKIE_AUTHENTICATED are left out.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Express } from "express";
import { buildApp } from "../../src/server/app.ts";
import { PLUGIN_PACKAGE } from "../endpoint/endpoint-server.ts";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/** POST routes a session cookie does not authenticate, and why. */
const NOT_COOKIE_AUTHENTICATED = new Map([
  ["/session/login", "signs in with the password; there is no session yet"],
  ["/auth", "IndieAuth: a client redeems a code with its PKCE verifier; no cookie is read"],
  ["/auth/token", "IndieAuth: a client exchanges a code or a refresh token; no cookie is read"],
  ["/auth/revoke", "IndieAuth: authenticated by the token it revokes; no cookie is read"],
  ["/auth/introspect", "IndieAuth: needs a bearer token; no cookie is read"],
  ["/local/backup", "possekit backup on this machine: the lock file's credential; no cookie is read"],
]);

interface RouterLayer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
}

interface PostRoute {
  path: string;
  /** Mounted from an endpoint's routesPublic or routesWellKnown: authenticated by a signature, if at all. */
  public: boolean;
}

/** Every route that answers POST, with its full path, from the app's router and the routers it mounts. */
function postRoutes(
  stack: RouterLayer[],
  publicRouters: Set<unknown>,
  prefix = "",
  inPublic = false,
): PostRoute[] {
  return stack.flatMap((layer) => {
    const here = typeof layer.rawPath === "string" && layer.rawPath !== "/" ? layer.rawPath : "";
    if (layer.route) {
      const path = withParameters(`${prefix}${String(layer.route.path)}`);
      return layer.route.methods.post || layer.route.methods._all ? [{ path, public: inPublic }] : [];
    }
    if (layer.handle?.stack) {
      const isPublic = inPublic || publicRouters.has(layer.handle);
      return postRoutes(layer.handle.stack, publicRouters, `${prefix}${here}`, isPublic);
    }
    return [];
  });
}

function withParameters(path: string): string {
  return path.replace(/:[A-Za-z_]+/g, "1").replace(/\/$/, "") || "/";
}

describe("CSRF on every cookie-authenticated POST route, enumerated from the router", () => {
  let server: TestServer;
  let session: { cookie: string; csrf: string };
  let routes: string[];
  /** Paths only public routers answer (a public router may pass a request on to an authenticated one). */
  let publicOnly: string[];
  before(async () => {
    server = await startTestServer({ config: { plugins: [PLUGIN_PACKAGE] }, plugins: [new TestPlugin()] });
    session = await server.signIn();
    const app: Express = buildApp(server.host);
    const stack = (app as unknown as { router: { stack: RouterLayer[] } }).router.stack;
    const publicRouters = new Set<unknown>(
      server.host.endpoints.flatMap((endpoint) => [endpoint.routesPublic, endpoint.routesWellKnown]),
    );
    const all = postRoutes(stack, publicRouters);
    routes = [...new Set(all.filter((route) => !route.public).map((route) => route.path))].sort();
    publicOnly = [...new Set(all.filter((route) => route.public).map((route) => route.path))]
      .filter((path) => !routes.includes(path))
      .sort();
  });
  after(() => server.close());

  it("finds the POST routes of the host, the Micropub endpoint and the syndication endpoint", () => {
    for (const expected of [
      "/micropub",
      "/syndicate",
      "/syndicate/retry",
      "/syndicate/posts/1/retry",
      "/syndicate/posts/1/confirm",
      "/syndicate/posts/1/skip",
      "/syndicate/targets/check",
      "/session/login",
      "/session/logout",
      "/status/tokens",
      "/status/tokens/revoke",
      "/auth/consent",
    ]) {
      assert.ok(routes.includes(expected), `${expected} is among ${routes.join(", ")}`);
    }
  });

  const post = (path: string, headers: Record<string, string>) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: {
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
        cookie: session.cookie,
        ...headers,
      },
      body: new URLSearchParams({ content: "x" }),
      redirect: "manual",
    });

  it("never lets the session cookie alone through a public (signature-authenticated) route", async () => {
    assert.ok(publicOnly.includes("/syndicate/webhook/github"), publicOnly.join(", "));
    for (const path of publicOnly) {
      const response = await post(path, { "x-csrf-token": session.csrf });
      await response.body?.cancel();
      // A WebSub callback answers only for a subscription of its own, cookie or not: a delivery for
      // any other gets 410 Gone (WebSub 7: the hub stops). Feeds run on every server with a
      // database since they can be added on the Feeds page (decision 0054).
      const refused = path.includes("/websub/") ? 410 : 401;
      assert.equal(response.status, refused, `${path} with only the session cookie`);
    }
  });

  it("refuses each one with 403 without the CSRF token or with a near miss, and lets the right token through", async () => {
    const nearMiss = `${session.csrf.slice(0, -1)}${session.csrf.endsWith("A") ? "B" : "A"}`;
    // Signing out (with the right token) ends the session every other check needs: it goes last.
    const last = (path: string) => Number(path === "/session/logout");
    const checked = routes
      .filter((path) => !NOT_COOKIE_AUTHENTICATED.has(path))
      .sort((a, b) => last(a) - last(b));
    assert.ok(checked.length >= 6, `only ${checked.length} routes to check`);
    for (const path of checked) {
      const without = await post(path, {});
      assert.equal(without.status, 403, `${path} without a CSRF token`);
      assert.equal(((await without.json()) as { error: string }).error, "forbidden", path);
      const near = await post(path, { "x-csrf-token": nearMiss });
      await near.body?.cancel();
      assert.equal(near.status, 403, `${path} with a near-miss CSRF token`);
      const right = await post(path, { "x-csrf-token": session.csrf });
      await right.body?.cancel();
      assert.notEqual(right.status, 403, `${path} with the right CSRF token`);
      assert.notEqual(right.status, 401, `${path} with the right CSRF token`);
    }
  });
});
