// IndieAuth end to end, as a Micropub client does it (decision 0019): discover the endpoints from the
// home page (Link header and HTML), send the owner's browser (Chromium) to the authorization
// endpoint with PKCE S256, let the owner sign in and approve on the consent page, exchange the code
// and create a post through Micropub with the token. Then each way it must fail, with the standard
// error: consent denied, a wrong verifier, a reused or expired code, a redirect URI on another host,
// plain PKCE, and a scope the owner unticked.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { decodeJwt } from "jose";
import { mf2 } from "microformats-parser";
import { type Browser, chromium, type Page } from "playwright";
import { pngBytes } from "../fakes/png.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import {
  authorizationUrl,
  type ClientApp,
  exchangeCode,
  pkcePair,
  startClientApp,
} from "../indieauth/indieauth-client.ts";
import { SCREENSHOTS, shownText } from "./syndicate-world.ts";

interface Endpoints {
  authorization: string;
  token: string;
  micropub: string;
  issuer: string;
}

/** What a client does with the user's URL: Link header first, then the HTML, then the metadata. */
async function discover(me: string): Promise<Endpoints> {
  const response = await fetch(me, { headers: { accept: "text/html" } });
  const header = response.headers.get("link") ?? "";
  const fromHeader = (rel: string) => new RegExp(`<([^>]+)>;\\s*rel="${rel}"`).exec(header)?.[1] ?? null;
  const rels = mf2(await response.text(), { baseUrl: me }).rels;
  const metadataUrl = fromHeader("indieauth-metadata");
  assert.ok(metadataUrl, "Link: rel=indieauth-metadata");
  assert.deepEqual(rels["indieauth-metadata"], [metadataUrl], "<link rel=indieauth-metadata>");
  const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, string>;
  const micropub = fromHeader("micropub") ?? rels.micropub?.[0];
  assert.ok(micropub);
  return {
    authorization: metadata.authorization_endpoint as string,
    token: metadata.token_endpoint as string,
    micropub,
    issuer: metadata.issuer as string,
  };
}

describe("an IndieAuth client signs the owner in with PKCE in a browser and posts", () => {
  let server: TestServer;
  let client: ClientApp;
  let browser: Browser;
  let page: Page;
  let endpoints: Endpoints;

  before(async () => {
    client = await startClientApp("Quill Test");
    // The client runs on this machine (a loopback client_id): its h-app page can only be read with
    // fetch.allowPrivate, as on a home network.
    server = await startTestServer({ config: { fetch: { allowPrivate: true } } });
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
    });
    const context = await browser.newContext();
    // The client's logo is on the public web, out of reach here: the browser gets it from the test.
    await context.route("https://client.example/logo.png", (route) =>
      route.fulfill({ status: 200, contentType: "image/png", body: pngBytes(96, 96) }),
    );
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
    endpoints = await discover(`${server.url}/`);
  });
  after(async () => {
    await browser.close();
    await server.close();
    await client.close();
  });

  /** The owner, already signed in, at the consent page for a fresh request; answers the callback's query. */
  async function consent(options: {
    scope?: string;
    decide: "approve" | "deny";
    untick?: string[];
  }): Promise<{ query: URLSearchParams; state: string; verifier: string }> {
    const pkce = pkcePair();
    const state = `state-${Math.random().toString(36).slice(2)}`;
    await page.goto(
      authorizationUrl(endpoints.authorization, client, {
        challenge: pkce.challenge,
        state,
        scope: options.scope,
      }),
    );
    for (const scope of options.untick ?? [])
      await page.getByRole("checkbox", { name: new RegExp(`^${scope} `) }).uncheck();
    const callbacks = client.callbacks.length;
    await page.getByRole("button", { name: options.decide === "approve" ? "Allow" : "Deny" }).click();
    await page.waitForURL((url) => url.href.startsWith(client.redirectUri));
    assert.equal(client.callbacks.length, callbacks + 1);
    return { query: client.callbacks.at(-1) as URLSearchParams, state, verifier: pkce.verifier };
  }

  const exchange = (code: string, verifier: string) =>
    exchangeCode(endpoints.token, {
      grant_type: "authorization_code",
      code,
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
    });

  const micropub = (token: string, body: Record<string, string>) =>
    fetch(endpoints.micropub, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body),
    });

  let firstCode = "";
  let firstVerifier = "";

  it("signs in, shows the consent page, approves, exchanges the code and creates a post", async () => {
    const pkce = pkcePair();
    const state = "first-state";
    await page.goto(
      authorizationUrl(endpoints.authorization, client, {
        challenge: pkce.challenge,
        state,
        scope: "create update",
      }),
    );
    // Not signed in yet: the sign-in page first, then back to the consent page.
    await page.waitForURL((url) => url.pathname === "/session/login");
    await page.getByLabel("Password").fill(server.password);
    await page.getByLabel("Password").press("Enter");
    await page.waitForURL((url) => url.pathname === "/auth");

    assert.equal(await shownText(page.getByRole("heading", { level: 1 })), "Let Quill Test sign you in?");
    const logo = page.locator(".consent-logo");
    assert.equal(await logo.getAttribute("src"), "https://client.example/logo.png");
    assert.equal(await logo.evaluate((image: HTMLImageElement) => image.naturalWidth), 96);
    assert.equal(await shownText(page.locator(".consent-redirect")), client.redirectUri);
    assert.equal(await page.locator("[data-client-id]").getAttribute("data-client-id"), client.clientId);
    for (const scope of ["create", "update"])
      assert.ok(await page.getByRole("checkbox", { name: new RegExp(`^${scope} `) }).isChecked());
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, "indieauth-consent.png"), fullPage: true });

    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((url) => url.href.startsWith(client.redirectUri));
    const query = client.callbacks.at(-1) as URLSearchParams;
    assert.equal(query.get("state"), state);
    assert.equal(query.get("iss"), endpoints.issuer);
    const code = query.get("code");
    assert.ok(code);

    const { status, body } = await exchange(code, pkce.verifier);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.me, server.host.publication.me);
    assert.equal(body.scope, "create update");
    assert.equal(body.token_type, "Bearer");
    const created = await micropub(body.access_token as string, {
      h: "entry",
      content: "Posted from Quill Test",
    });
    assert.equal(created.status, 201);
    const location = created.headers.get("location");
    assert.ok(location?.startsWith(server.host.publication.me));
    const post = await server.host.posts?.findByUrl(location as string);
    assert.equal(post?.properties.content, "Posted from Quill Test");
    firstCode = code;
    firstVerifier = pkce.verifier;
  });

  it("refuses the same code a second time: invalid_grant", async () => {
    const again = await exchange(firstCode, firstVerifier);
    assert.equal(again.status, 400);
    assert.equal(again.body.error, "invalid_grant");
  });

  it("sends access_denied back when the owner denies", async () => {
    const { query, state } = await consent({ decide: "deny" });
    assert.equal(query.get("error"), "access_denied");
    assert.equal(query.get("state"), state);
    assert.equal(query.get("iss"), endpoints.issuer);
    assert.equal(query.get("code"), null);
  });

  it("refuses a wrong code_verifier: invalid_grant", async () => {
    const { query } = await consent({ decide: "approve" });
    const wrong = await exchange(query.get("code") as string, pkcePair().verifier);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, "invalid_grant");
  });

  it("refuses an expired code: invalid_grant", async () => {
    const { query, verifier } = await consent({ decide: "approve" });
    await server.host.database?.query(
      "UPDATE indieauth_codes SET expires_at = now() - interval '1 second' WHERE used_at IS NULL",
    );
    const late = await exchange(query.get("code") as string, verifier);
    assert.equal(late.status, 400);
    assert.equal(late.body.error, "invalid_grant");
  });

  it("shows an error page, and sends nothing, for a redirect URI on another host", async () => {
    const callbacks = client.callbacks.length;
    const foreign = authorizationUrl(
      endpoints.authorization,
      { clientId: client.clientId, redirectUri: "https://attacker.example/steal" },
      { challenge: pkcePair().challenge },
    );
    const response = await page.goto(foreign);
    assert.equal(response?.status(), 400);
    assert.equal(new URL(page.url()).pathname, "/auth");
    assert.match(
      await shownText(page.locator("main")),
      /redirect_uri https:\/\/attacker\.example\/steal is not on the host/,
    );
    assert.equal(await page.getByRole("button", { name: "Allow" }).count(), 0);
    assert.equal(client.callbacks.length, callbacks);
  });

  it("sends invalid_request back for plain PKCE, before any consent", async () => {
    const challenge = pkcePair().verifier;
    await page.goto(
      authorizationUrl(endpoints.authorization, client, { challenge, state: "plain-state", method: "plain" }),
    );
    await page.waitForURL((url) => url.href.startsWith(client.redirectUri));
    const query = client.callbacks.at(-1) as URLSearchParams;
    assert.equal(query.get("error"), "invalid_request");
    assert.match(query.get("error_description") ?? "", /S256/);
    assert.equal(query.get("state"), "plain-state");
    assert.equal(query.get("code"), null);
  });

  it("grants only the scopes left ticked; the token is refused for the unticked one", async () => {
    const { query, verifier } = await consent({
      decide: "approve",
      scope: "create update",
      untick: ["update"],
    });
    const { body } = await exchange(query.get("code") as string, verifier);
    assert.equal(body.scope, "create");
    const token = body.access_token as string;
    const created = await micropub(token, { h: "entry", content: "Only create" });
    assert.equal(created.status, 201);
    const update = await fetch(endpoints.micropub, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        action: "update",
        url: created.headers.get("location"),
        replace: { content: ["Changed"] },
      }),
    });
    assert.equal(update.status, 401);
    const refusal = (await update.json()) as { error: string; scope: string };
    assert.equal(refusal.error, "insufficient_scope");
    assert.equal(refusal.scope, "update");

    // The token is on the status page with the others, under its client, and revoked from there.
    await page.goto(`${server.url}/status`);
    const row = page.locator(`tr[data-token-id="${decodeJwt(token).jti}"]`);
    assert.match(await shownText(row), new RegExp(`create ${client.clientId.replace(/[.]/g, "\\.")}`));
    // Revoke asks first (decision 0051).
    await row.locator(".revoke summary").click();
    await row.getByRole("button", { name: /^Yes, revoke/ }).click();
    await page.waitForURL(`${server.url}/status`);
    const after = await micropub(token, { h: "entry", content: "After revocation" });
    assert.equal(after.status, 401);
  });

  it("shows the consent page in German", async () => {
    const context = await browser.newContext({ locale: "de-DE" });
    const german = await context.newPage();
    await german.goto(authorizationUrl(endpoints.authorization, client, { challenge: pkcePair().challenge }));
    await german.getByLabel("Passwort").fill(server.password);
    await german.getByLabel("Passwort").press("Enter");
    await german.waitForURL((url) => url.pathname === "/auth");
    assert.equal(
      await shownText(german.getByRole("heading", { level: 1 })),
      "Quill Test die Anmeldung mit Ihrer Website erlauben?",
    );
    assert.ok(await german.getByRole("button", { name: "Erlauben" }).isVisible());
    assert.ok(await german.getByRole("button", { name: "Ablehnen" }).isVisible());
    await context.close();
  });
});
