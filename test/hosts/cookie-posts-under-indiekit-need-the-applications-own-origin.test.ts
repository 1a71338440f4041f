// Decision 0041, CSRF: inside Indiekit, a browser signed in to Indiekit carries its session cookie to the
// plug-in's routes from any site, and Indiekit checks no CSRF token. A change riding on that cookie
// is refused (403) unless it comes from the application's own origin (Sec-Fetch-Site, Origin, or
// the CSRF token our page sends); a request carrying its own token (Bearer, a form's access_token) is
// taken from anywhere.
// The host is Indiekit-shaped: a session read from a cookie (cookie-session's `isNew`: false) or a new
// one its authentication fills from a verified Bearer token, then the plug-in's routers, in
// Indiekit's order (packages/indiekit/lib/routes.js, lib/indieauth.js). Without a database the
// endpoint's POST answers 501: a request that got past the check reaches the route, one refused
// never does.
import assert from "node:assert/strict";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import express, { type NextFunction, type Request, type Response } from "express";
import type { EndpointPlugin } from "../../src/contract/plugin.ts";
import { EndpointSyndicate } from "../../src/index.ts";
import { csrfTokenFor } from "../../src/plugin/indiekit/cookie-csrf.ts";

const TOKEN = "indiekit-token-of-the-signed-in-user";
const COOKIE = `indiekit-session=${TOKEN}`;

describe("inside Indiekit, a POST riding on Indiekit's session cookie", () => {
  let base: string;
  let origin: string;
  let close: () => Promise<void>;
  before(async () => {
    const host = {
      endpoints: new Set<EndpointPlugin>(),
      publication: { me: "https://blog.example/" },
      addEndpoint(endpoint: EndpointPlugin) {
        host.endpoints.add(endpoint);
      },
    };
    const plugin = new EndpointSyndicate({ mountPath: "/posse" });
    await plugin.init(host);
    const app = express();
    app.use(express.urlencoded({ extended: true }));
    // Indiekit's session: what the cookie holds, or a new, empty one.
    app.use((req, _res, next) => {
      const held = /indiekit-session=([^;]+)/.exec(req.headers.cookie ?? "")?.[1];
      const session = held
        ? { access_token: held, scope: "create update", isNew: false }
        : { isNew: true as boolean, access_token: undefined as string | undefined, scope: "" };
      Object.assign(req, { session, getLocale: () => "de" });
      next();
    });
    app.use(plugin.mountPath, plugin.routesPublic);
    // Indiekit's authentication: the session's token, or a Bearer token it verifies and keeps there.
    app.use((req, res, next) => {
      const session = (req as Request & { session: { access_token?: string; scope: string } }).session;
      if (session.access_token) return next();
      const body = req.body as Record<string, unknown> | undefined;
      if (req.headers.authorization === `Bearer ${TOKEN}` || body?.access_token === TOKEN) {
        // A form's access_token is verified and taken out of the body, as Indiekit does.
        if (body) delete body.access_token;
        session.access_token = TOKEN;
        session.scope = "create update";
        return next();
      }
      res.status(401).json({ error: "unauthorized" });
    });
    app.use(plugin.mountPath, plugin.routes);
    app.use(
      (
        error: { status?: number; code?: string; message: string },
        req: Request,
        res: Response,
        _next: NextFunction,
      ) => {
        // Indiekit's handler: its error page shows the message as it is, JSON for API clients.
        res.status(error.status ?? 500);
        if (req.accepts(["json", "html"]) === "html") res.type("html").send(`<p>${error.message}</p>`);
        else res.json({ error: error.code, error_description: error.message });
      },
    );
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    base = `${origin}/posse`;
    app.locals.application = { url: `${origin}/` };
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  after(() => close());

  const post = (headers: Record<string, string>, body = "") =>
    fetch(base, {
      method: "POST",
      headers: {
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
        ...headers,
      },
      body,
    });

  it("is refused when another site sent it, and never reaches the route", async () => {
    const crossSite: Record<string, string>[] = [
      { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      { origin: "https://evil.example" },
      { "sec-fetch-site": "same-site" },
      {},
    ];
    for (const headers of crossSite) {
      const response = await post({ cookie: COOKIE, ...headers });
      const body = (await response.json()) as { error: string; error_description: string };
      assert.equal(response.status, 403, JSON.stringify(headers));
      assert.equal(body.error, "forbidden");
      assert.match(body.error_description, /sent from another site/);
    }
  });

  it("shows a browser the refusal in the language Indiekit chose", async () => {
    const response = await post({ cookie: COOKIE, origin: "https://evil.example", accept: "text/html" });
    assert.equal(response.status, 403);
    assert.match(
      await response.text(),
      /Dieses Formular ist abgelaufen oder wurde von einer anderen Website gesendet/,
    );
  });

  it("is refused even with a made-up access_token or ?token beside the cookie", async () => {
    const response = await post({ cookie: COOKIE, origin: "https://evil.example" }, "access_token=made-up");
    assert.equal(response.status, 403);
    const query = await fetch(`${base}?token=made-up`, {
      method: "POST",
      headers: { accept: "application/json", cookie: COOKIE, origin: "https://evil.example" },
    });
    assert.equal(query.status, 403);
  });

  it("goes through from the application's own origin, or with the page's CSRF token", async () => {
    const sameOrigin: Record<string, string>[] = [
      { origin, "sec-fetch-site": "same-origin" },
      { origin },
      { "sec-fetch-site": "same-origin" },
    ];
    for (const headers of sameOrigin) {
      const response = await post({ cookie: COOKIE, ...headers });
      assert.equal(response.status, 501, `reached the route: ${JSON.stringify(headers)}`);
    }
    const csrf = csrfTokenFor({ session: { access_token: TOKEN } } as unknown as Request) ?? "";
    const withField = await post({ cookie: COOKIE }, `_csrf=${encodeURIComponent(csrf)}`);
    assert.equal(withField.status, 501, "an old browser sending neither header, with the form's token");
    const withHeader = await post({ cookie: COOKIE, "x-csrf-token": csrf });
    assert.equal(withHeader.status, 501, "htmx's X-CSRF-Token");
    const wrong = await post({ cookie: COOKIE, "x-csrf-token": `${csrf.slice(1)}x` });
    assert.equal(wrong.status, 403);
  });

  it("does not stop a request that carries its own token, from anywhere", async () => {
    const bearer = await post({ authorization: `Bearer ${TOKEN}`, origin: "https://evil.example" });
    assert.equal(bearer.status, 501);
    const withCookieToo = await post({
      authorization: `Bearer ${TOKEN}`,
      cookie: COOKIE,
      "sec-fetch-site": "cross-site",
    });
    assert.equal(withCookieToo.status, 501, "the cookie's token, sent as Bearer, is known to the sender");
  });

  it("does not stop a form that carries its own access_token, from anywhere", async () => {
    const form = await post(
      { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      `access_token=${encodeURIComponent(TOKEN)}`,
    );
    assert.equal(form.status, 501, "Indiekit verified the form's token into a new session");
    const wrong = await post({ origin: "https://evil.example" }, "access_token=made-up");
    assert.equal(wrong.status, 401, "a made-up form token is Indiekit's to refuse");
  });

  it("lets a cross-site GET show the page: reading changes nothing", async () => {
    const page = await fetch(base, { headers: { cookie: COOKIE, "sec-fetch-site": "cross-site" } });
    assert.notEqual(page.status, 403);
  });
});
