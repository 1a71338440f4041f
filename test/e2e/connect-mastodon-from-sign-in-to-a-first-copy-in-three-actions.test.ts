// The owner's actions from sign-in to a first copy on the sandbox Mastodon, counted in a real
// browser (Chromium): sign in; type the instance under "Connect with your instance" and press it;
// press Authorize on the instance's own page. The post written before (through Micropub, naming the
// account) then goes out by itself. At most four actions are allowed; none edits a file or
// restarts the server, which keeps running throughout and has the account as a target at once.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { EndpointSyndicate } from "../../src/index.ts";
import { launchChromium } from "../helpers/chromium.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SCREENSHOTS } from "./syndicate-world.ts";

describe("Connecting Mastodon in the browser", () => {
  let sandbox: MastodonSandbox;
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    sandbox = await startMastodonSandbox({
      accessToken: "configured-unused",
      user: "alice",
      name: "Sandbox Mastodon",
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

  it("takes three of the owner's actions from sign-in to the first copy", async () => {
    const uid = `${sandbox.url}/@alice`;
    // Written earlier from a Micropub client, naming the account the owner is about to connect.
    await createPostAt(server.url, await server.token("create update"), {
      content: "My first post for Mastodon",
      targets: [uid],
    });

    const actions: string[] = [];
    const page: Page = await browser.newPage();
    await page.goto(`${server.url}/syndicate/accounts`);
    await page.waitForURL((url) => url.pathname === "/session/login");

    actions.push("sign in");
    await page.getByLabel("Password").fill(server.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/syndicate/accounts");

    actions.push("type the instance and press Connect with your instance");
    await page
      .locator("form")
      .filter({ hasText: "Connect with your instance" })
      .getByLabel("Instance")
      .fill(sandbox.url);
    await page.getByRole("button", { name: "Connect with your instance" }).click();
    await page.waitForURL((url) => url.origin === sandbox.url && url.pathname === "/oauth/authorize");
    assert.equal(new URL(page.url()).searchParams.get("code_challenge_method"), "S256");
    assert.match(
      (await page.locator("main").textContent()) ?? "",
      /possekit would like permission to access your account/,
    );

    actions.push("press Authorize on the instance");
    await page.getByRole("button", { name: "Authorize" }).click();
    await page.waitForURL((url) => url.origin === server.url && url.pathname === "/syndicate/accounts");
    const host = new URL(sandbox.url).host;
    assert.match(
      (await page.getByRole("status").first().textContent()) ?? "",
      new RegExp(`Connected as @alice@${host.replace(/\./g, "\\.")}`),
    );
    await page.screenshot({ path: join(SCREENSHOTS, "accounts-connected-with-oauth.png"), fullPage: true });

    // Nothing more from the owner: the waiting post goes out by itself.
    await until("the first copy reaches the sandbox", () =>
      sandbox.statuses.some((status) => status.text.startsWith("My first post for Mastodon")),
    );
    assert.ok(actions.length <= 4, `${actions.length} actions: ${actions.join("; ")}`);
    assert.deepEqual(actions, [
      "sign in",
      "type the instance and press Connect with your instance",
      "press Authorize on the instance",
    ]);
    // The running server, never restarted, has the account as a target.
    assert.ok(server.host.syndicators.some((syndicator) => syndicator.info.uid === uid));
    const copy = sandbox.statuses.find((status) => status.text.startsWith("My first post"));
    assert.equal(copy?.username, "alice");
  });
});
