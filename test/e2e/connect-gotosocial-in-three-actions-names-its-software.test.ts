// The account connection in a real browser (Chromium), for a server that speaks Mastodon's API but
// is GoToSocial (the sandbox answering as GoToSocial's source says: no OAuth metadata, no PKCE, a
// bare version, NodeInfo naming "gotosocial"): sign in, type the instance and press Connect,
// press Authorize. The page then names the software, the coarse scopes were asked for, and the post
// written before goes out by itself, with GoToSocial's own status address.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { EndpointSyndicate } from "../../src/index.ts";
import { launchChromium } from "../helpers/chromium.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SCREENSHOTS } from "./syndicate-world.ts";

describe("Connecting a GoToSocial account in the browser", () => {
  let sandbox: MastodonSandbox;
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    sandbox = await startMastodonSandbox({
      accessToken: "configured-unused",
      user: "carol",
      name: "Sandbox GoToSocial",
      software: "gotosocial",
    });
    server = await startTestServer({
      engine: pgliteEngine,
      config: { plugins: [], fetch: { allowPrivate: true } },
      plugins: [new EndpointSyndicate({}, { env: process.env })],
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await sandbox?.close();
  });

  it("takes three actions, names GoToSocial on the Accounts page, and sends the waiting post", async () => {
    const uid = `${sandbox.url}/@carol`;
    await createPostAt(server.url, await server.token("create update"), {
      content: "Waiting for GoToSocial",
      targets: [uid],
    });
    const page = await browser.newPage();
    await page.goto(`${server.url}/syndicate/accounts`);
    await page.waitForURL((url) => url.pathname === "/session/login");

    await page.getByLabel("Password").fill(server.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/syndicate/accounts");

    await page
      .locator("form")
      .filter({ hasText: "Connect with your instance" })
      .getByLabel("Instance")
      .fill(sandbox.url);
    await page.getByRole("button", { name: "Connect with your instance" }).click();
    await page.waitForURL((url) => url.origin === sandbox.url && url.pathname === "/oauth/authorize");
    const authorize = new URL(page.url());
    assert.equal(
      authorize.searchParams.get("scope"),
      "read write",
      "GoToSocial lists no scopes: the coarse ones",
    );
    assert.equal(authorize.searchParams.get("code_challenge_method"), null, "it lists no PKCE method");

    await page.getByRole("button", { name: "Authorize" }).click();
    await page.waitForURL((url) => url.origin === server.url && url.pathname === "/syndicate/accounts");
    const row = page.locator(`[data-uid="${uid}"]`);
    assert.match((await row.textContent()) ?? "", /runs GoToSocial/);
    await page.screenshot({ path: join(SCREENSHOTS, "accounts-connected-gotosocial.png"), fullPage: true });

    await until("the waiting post reaches GoToSocial", () =>
      sandbox.statuses.some((status) => status.text.startsWith("Waiting for GoToSocial")),
    );
    assert.match(sandbox.statuses[0]?.url ?? "", new RegExp(`^${sandbox.url}/@carol/statuses/\\d+$`));
  });
});
