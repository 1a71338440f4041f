// The web interface (spec §5 rule 1): the status page makes the signed-in user an access token with
// the scopes ticked (create and update unless changed), shows it once with a copy button, and lists
// plug-ins and syndication targets; the shared layout carries the navigation and sign-out; assets
// come from the server itself.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodeJwt } from "jose";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import TestSyndicator from "../fixtures/test-syndicator.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { makeTokenOnStatus } from "../helpers/status-token.ts";
import { browser, cookieFrom, navigationOf } from "./pages.ts";

describe("the status page and the layout", () => {
  let server: TestServer;
  let session: { cookie: string; csrf: string };
  before(async () => {
    server = await startTestServer({
      database: false,
      config: { plugins: [], publication: { name: "Alice’s notes" } },
      plugins: [
        new TestPlugin(),
        new TestSyndicator({ uid: "https://social.example/@alice", name: "Alice on Social" }),
      ],
    });
    session = await server.signIn();
  });
  after(() => server.close());

  const statusPage = async (headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}/status`, {
      headers: browser({ cookie: session.cookie, ...headers }),
    });
    assert.equal(response.status, 200);
    return response.text();
  };

  it("makes an access token with scope create update, shown next to a button that copies it", async () => {
    const page = await statusPage();
    assert.match(page, /<input type="checkbox" name="scope" value="create" checked>/);
    assert.match(page, /<input type="checkbox" name="scope" value="update" checked>/);
    assert.match(page, /<input type="checkbox" name="scope" value="delete">/);
    assert.match(page, /<option value="90" selected>90 days<\/option>/);
    const { response, html, token } = await makeTokenOnStatus(server.url, session);
    assert.equal(response.status, 201);
    assert.ok(token, "the token is on the page");
    assert.match(html, /<button type="button" data-copy="#access-token" data-copied="Copied">Copy<\/button>/);
    const claims = decodeJwt(token);
    assert.equal(claims.scope, "create update");
    assert.equal(claims.me, server.host.publication.me);
    assert.equal(typeof claims.client_id, "string");
    assert.ok(typeof claims.iat === "number" && typeof claims.exp === "number");
    assert.equal(Math.round(((claims.exp ?? 0) - (claims.iat ?? 0)) / 86_400), 90);
  });

  it("shows a token the server accepts", async () => {
    const { token } = await makeTokenOnStatus(server.url, session);
    const response = await fetch(`${server.url}/test-mount/whoami?token=${token}`);
    assert.equal(response.status, 200);
    assert.deepEqual((await response.json()).auth.scope, ["create", "update"]);
  });

  it("lists the installed plug-ins with their mountPath, and the syndication targets", async () => {
    const html = await statusPage();
    assert.match(
      html,
      /<strong>Test plug-in<\/strong> <code>test-plugin<\/code> · <code>\/test-mount<\/code>/,
    );
    assert.match(html, /<strong>Test syndicator<\/strong> <code>test-syndicator<\/code>/);
    assert.match(html, /<strong>Alice on Social<\/strong> <code>https:\/\/social.example\/@alice<\/code>/);
    assert.match(html, /Database: none/);
  });

  it("is in the browser's language, the copy button too", async () => {
    const html = await statusPage({ "accept-language": "de" });
    assert.match(html, /<h2>Syndizierungsziele<\/h2>/);
    const made = await makeTokenOnStatus(server.url, session, { headers: { "accept-language": "de" } });
    assert.match(made.html, /data-copied="Kopiert">Kopieren<\/button>/);
  });

  it("carries the CSRF token for htmx, the publication's name, the navigation and a sign-out form", async () => {
    const html = await statusPage();
    assert.match(html, new RegExp(`<meta name="csrf-token" content="${session.csrf}">`));
    assert.match(html, /<a class="site-name" href="\/">Alice’s notes<\/a>/);
    // Without a database, the test plug-in's second item (requiresDatabase) is not there.
    assert.deepEqual(
      navigationOf(html)?.map((link) => link.href),
      ["/test-mount/page", "/status"],
    );
    assert.match(html, /<form method="post" action="\/session\/logout" class="sign-out">/);
  });

  it("signs out through the layout's form", async () => {
    const { cookie, csrf } = await server.signIn();
    // The form's own fields, as the browser submits them: the hidden _csrf field among them.
    const page = await (await fetch(`${server.url}/status`, { headers: browser({ cookie }) })).text();
    const form = /<form method="post" action="\/session\/logout" class="sign-out">([\s\S]*?)<\/form>/.exec(
      page,
    )?.[1];
    assert.ok(form, "the layout has the sign-out form");
    const fields = new URLSearchParams();
    for (const [, name, value] of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      fields.append(name ?? "", value ?? "");
    assert.equal(fields.get("_csrf"), csrf, "the form carries the session's CSRF token");
    const response = await fetch(`${server.url}/session/logout`, {
      method: "POST",
      headers: browser({ cookie, "content-type": "application/x-www-form-urlencoded", origin: server.url }),
      body: fields,
      redirect: "manual",
    });
    assert.equal(response.status, 303);
    assert.equal(cookieFrom(response, "possekit_session")?.value, "");
  });

  it("shows the home page's sign-in link to visitors, and its admin links to the signed-in user", async () => {
    const visitor = await (await fetch(`${server.url}/`, { headers: browser() })).text();
    assert.match(visitor, /<a class="button" href="\/session\/login">Sign in<\/a>/);
    assert.equal(navigationOf(visitor), null, "no navigation for visitors");
    const admin = await (
      await fetch(`${server.url}/`, { headers: browser({ cookie: session.cookie }) })
    ).text();
    assert.match(admin, /<a href="\/test-mount\/page">Test page<\/a>/);
    assert.match(admin, /<a href="\/status">Status<\/a>/);
  });

  it("serves its stylesheet, its script and htmx itself, with no external CDN", async () => {
    const html = await statusPage();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? "");
    assert.deepEqual(
      sources.filter((source) => /^(https?:)?\/\//.test(source)),
      [],
    );
    for (const path of ["/assets/style.css", "/assets/app.js", "/assets/vendor/htmx.min.js"]) {
      assert.ok(sources.includes(path), `${path} is on the page`);
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 200, path);
      assert.ok((await response.text()).length > 100, path);
    }
  });
});

describe("the status page without syndication targets", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] } });
  });
  after(() => server.close());

  it("says there is no target and how to add one", async () => {
    const { cookie } = await server.signIn();
    const html = await (await fetch(`${server.url}/status`, { headers: browser({ cookie }) })).text();
    assert.match(html, /No syndication target is configured/);
  });
});
