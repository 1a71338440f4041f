// Decision 0041: the plug-in inside the real Indiekit (1.0.0-beta.29 from its source, Node 24,
// this package from `npm pack`, `plugins: ["@indiekit/store-file-system", "@possekit/endpoint-syndicate"]`),
// without a database, as an Indiekit user would install it. Run with `npm run test:interop:indiekit`
// (the first run installs Indiekit and Node 24 into /var/cache/possekit-interop, later runs reuse them).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import {
  type Installed,
  indiekitToken,
  installIndiekitWithOurPackage,
  PACKAGE_NAME,
  type RunningIndiekit,
  runIndiekitUntilExit,
  startIndiekit,
} from "./indiekit.ts";

const MOUNT = "/posse";
const WEBHOOK_SECRET = "a-webhook-secret-long-enough-to-count";

/** No key of our catalogue left untranslated on a page (syndicate.title, syndicate.noDatabase, …). */
const RAW_KEY = /\bsyndicate\.[a-zA-Z]/;

describe("the plug-in inside the real Indiekit, without a database", () => {
  let installed: Installed;
  let indiekit: RunningIndiekit;
  let full: string;
  let mediaOnly: string;

  before(async () => {
    installed = installIndiekitWithOurPackage();
    indiekit = await startIndiekit(installed, { mountPath: MOUNT }, { WEBHOOK_SECRET });
    full = await indiekit.token("create update delete media");
    mediaOnly = await indiekit.token("media");
  });
  after(() => indiekit?.stop());

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${indiekit.url}${path}`, { headers, redirect: "manual" });

  it("starts, and lists ours beside Indiekit's own syndication endpoint by name", async () => {
    assert.match(indiekit.output(), /Starting Indiekit with possekit/);
    const plugins = await (
      await get("/plugins", { authorization: `Bearer ${full}`, accept: "text/html" })
    ).text();
    assert.match(plugins, /possekit syndication endpoint/);
    assert.match(plugins, />\s*Syndication endpoint\s*</, "Indiekit's own, under its own name");
  });

  it("hides our navigation item without a database, and shows no raw key", async () => {
    // Indiekit builds the navigation before it authenticates: the session cookie a token's first
    // request sets makes the next page a signed-in one.
    const first = await get("/status", { authorization: `Bearer ${full}`, accept: "text/html" });
    const cookie = first.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    assert.ok(cookie, "Indiekit keeps the token in its session cookie");
    const page = await (await get("/status", { cookie, accept: "text/html" })).text();
    assert.match(page, /href="\/session\/logout"/, "a signed-in page with Indiekit's navigation");
    assert.doesNotMatch(page, new RegExp(`href="${MOUNT}"`));
    assert.doesNotMatch(page, RAW_KEY);
  });

  it("answers behind Indiekit's authentication with a Bearer token, keeping the error's code", async () => {
    const response = await get(MOUNT, { authorization: `Bearer ${full}`, accept: "application/json" });
    assert.equal(response.status, 501);
    const body = (await response.json()) as { error: string; error_description: string };
    assert.equal(body.error, "not_implemented");
    assert.match(body.error_description, /inside Indiekit/);
  });

  it("answers with the token as ?token", async () => {
    const response = await get(`${MOUNT}?token=${full}`, { accept: "application/json" });
    assert.equal(response.status, 501);
    assert.equal(((await response.json()) as { error: string }).error, "not_implemented");
  });

  it("answers with the token as a form's access_token", async () => {
    const response = await fetch(`${indiekit.url}${MOUNT}`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ access_token: full }),
      redirect: "manual",
    });
    assert.equal(response.status, 501);
    assert.equal(((await response.json()) as { error: string }).error, "not_implemented");
  });

  it("reads the scope Indiekit keeps in its session: a media token may not read the page", async () => {
    const response = await get(MOUNT, { authorization: `Bearer ${mediaOnly}`, accept: "application/json" });
    assert.equal(response.status, 403);
    const body = (await response.json()) as { error: string; scope: string };
    assert.equal(body.error, "insufficient_scope");
    assert.equal(body.scope, "update");
  });

  it("lets Indiekit refuse a request without a token (its sign-in page for a browser)", async () => {
    const page = await get(MOUNT, { accept: "text/html" });
    assert.equal(page.status, 302);
    assert.match(page.headers.get("location") ?? "", /^\/session\/login/);
  });

  it("says on the page, in the reader's language, that it needs a database", async () => {
    for (const [lang, words] of [
      ["en", /Syndication needs a database, and inside Indiekit/],
      ["de", /Die Syndizierung braucht eine Datenbank, und innerhalb von Indiekit/],
      ["fr", /La syndication a besoin d’une base de données, et dans Indiekit/],
    ] as const) {
      const response = await get(`${MOUNT}?lang=${lang}`, {
        authorization: `Bearer ${full}`,
        accept: "text/html",
      });
      assert.equal(response.status, 501);
      const page = await response.text();
      assert.match(page, words, lang);
      assert.doesNotMatch(page, RAW_KEY, lang);
      assert.doesNotMatch(page, /HttpError/, `${lang}: the title is Indiekit's localised one`);
    }
  });

  it("answers its public webhooks without credentials, before Indiekit's authentication", async () => {
    for (const path of ["/webhook/github", "/webhook/netlify", "/webhook"]) {
      const response = await fetch(`${indiekit.url}${MOUNT}${path}`, {
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/json" },
        body: "{}",
        redirect: "manual",
      });
      assert.equal(response.status, 501, path);
      assert.equal(((await response.json()) as { error: string }).error, "not_implemented", path);
    }
  });

  it("refuses to start at /syndicate, Indiekit's own endpoint's path, with one line saying what to write", async () => {
    const exit = await runIndiekitUntilExit(installed, {});
    assert.equal(exit.code, 1);
    const lines = exit.stderr.trim().split("\n");
    assert.equal(lines.length, 1, exit.stderr);
    assert.match(lines[0] ?? "", new RegExp(`^${PACKAGE_NAME}: mountPath "/syndicate" is already served by`));
    assert.match(lines[0] ?? "", /mountPath: "\/posse"/);
    assert.doesNotMatch(exit.stdout, /Starting/);
  });
});

describe("the plug-in inside the real Indiekit, with a database folder of its own", () => {
  let installed: Installed;
  let indiekit: RunningIndiekit;
  let mastodon: MastodonSandbox;
  let full: string;
  let dataDir: string;

  before(async () => {
    installed = installIndiekitWithOurPackage();
    mastodon = await startMastodonSandbox({
      accessToken: "sandbox-token",
      user: "alice",
      displayName: "Alice",
    });
    dataDir = mkdtempSync(join(tmpdir(), "possekit-indiekit-data-"));
    indiekit = await startIndiekit(
      installed,
      ({ url }) => ({
        mountPath: MOUNT,
        database: { folder: join(dataDir, "posse") },
        schedule: { enabled: true, whenLive: false },
        targets: { checkAtStart: false },
        // Indiekit's own Micropub endpoint, with one of its tokens from the environment.
        sources: [
          { type: "micropub", name: "indiekit", endpoint: `${url}/micropub`, tokenEnv: "INDIEKIT_TOKEN" },
        ],
        syndicators: {
          "@possekit/syndicator-mastodon": { url: mastodon.url, user: "alice", accessToken: "sandbox-token" },
        },
      }),
      async ({ secret }) => ({
        WEBHOOK_SECRET,
        INDIEKIT_TOKEN: await indiekitToken(secret, "create update"),
      }),
    );
    full = await indiekit.token("create update delete media");
  });
  after(async () => {
    await indiekit?.stop();
    await mastodon?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${indiekit.url}${path}`, { headers, redirect: "manual" });

  it("shows our navigation item, since the plug-in has a database whatever Indiekit has", async () => {
    const first = await get("/status", { authorization: `Bearer ${full}`, accept: "text/html" });
    const cookie = first.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    const page = await (await get("/status", { cookie, accept: "text/html" })).text();
    assert.match(page, new RegExp(`href="${MOUNT}"`));
    assert.doesNotMatch(page, RAW_KEY);
  });

  it("renders the page as a page of its own, in the reader's language, listing our target", async () => {
    for (const [lang, title] of [
      ["en", "Syndicate"],
      ["de", "Syndizieren"],
    ] as const) {
      const response = await get(`${MOUNT}?lang=${lang}`, {
        authorization: `Bearer ${full}`,
        accept: "text/html",
      });
      const page = await response.text();
      assert.equal(response.status, 200, page.slice(0, 400));
      assert.match(page, new RegExp(`<title>${title} · `), lang);
      assert.match(page, new RegExp(`href="${MOUNT}/assets/style.css"`));
      assert.match(page, /@alice/, `${lang}: the Mastodon target of the syndicators option is listed`);
      assert.doesNotMatch(page, /syndicate\.(?!css\b|js\b)[a-zA-Z]/, lang);
      assert.doesNotMatch(
        page,
        /bannerError|refused by/,
        `${lang}: the source's token is accepted by Indiekit`,
      );
    }
    const style = await get(`${MOUNT}/assets/style.css`);
    assert.equal(style.status, 200);
    await style.arrayBuffer();
  });

  it("answers a run with its core (no longer 501), and keeps its own error codes", async () => {
    const response = await fetch(`${indiekit.url}${MOUNT}`, {
      method: "POST",
      headers: { authorization: `Bearer ${full}`, accept: "application/json" },
      redirect: "manual",
    });
    assert.equal(response.status, 200, await response.clone().text());
    const missing = await get(`${MOUNT}/posts/does-not-exist`, {
      authorization: `Bearer ${full}`,
      accept: "application/json",
    });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: string }).error, "not_found");
  });

  it("finds no post to send, because Indiekit without MongoDB lists none through its Micropub endpoint", async () => {
    const uid = `${mastodon.url}/@alice`;
    const created = await fetch(`${indiekit.url}/micropub`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${full}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({
        type: ["h-entry"],
        properties: { content: ["Hello from Indiekit"], "mp-syndicate-to": [uid] },
      }),
    });
    assert.equal(created.status, 202, await created.clone().text());
    const url = created.headers.get("location") ?? "";
    const headers = { authorization: `Bearer ${full}`, accept: "application/json" };
    const listing = (await (await get("/micropub?q=source", headers)).json()) as { items: unknown[] };
    assert.deepEqual(listing.items, [], "Indiekit keeps posts only in MongoDB");
    const byUrl = await get(`/micropub?q=source&url=${encodeURIComponent(url)}`, headers);
    assert.equal(byUrl.status, 400);
    await byUrl.arrayBuffer();
    const run = await fetch(`${indiekit.url}${MOUNT}`, { method: "POST", headers, redirect: "manual" });
    assert.equal(run.status, 200);
    await run.arrayBuffer();
    assert.equal(mastodon.statuses.length, 0, "nothing could be read, so nothing was sent");
  });
});
