// The account connection in a real browser (Chromium), for a server that speaks Mastodon's API but
// is GoToSocial (the sandbox answering as GoToSocial's source says: no OAuth metadata, no PKCE, a
// bare version, NodeInfo naming "gotosocial"): sign in, type the instance and press Connect,
// press Authorize. The page then names the software, the coarse scopes were asked for, and the post
// written before goes out by itself, with GoToSocial's own status address.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { until } from "../helpers/eventually.ts";
import { type AccountsPageWorld, connectInstance, startAccountsPageWorld } from "./accounts-page-world.ts";
import { SCREENSHOTS } from "./syndicate-world.ts";

describe("Connecting a GoToSocial account in the browser", () => {
  let sandbox: MastodonSandbox;
  let world: AccountsPageWorld;

  before(async () => {
    sandbox = await startMastodonSandbox({
      accessToken: "configured-unused",
      user: "carol",
      name: "Sandbox GoToSocial",
      software: "gotosocial",
    });
    world = await startAccountsPageWorld();
  });
  after(async () => {
    await world?.close();
    await sandbox?.close();
  });

  it("takes three actions, names GoToSocial on the Accounts page, and sends the waiting post", async () => {
    const uid = `${sandbox.url}/@carol`;
    await world.postWaitingFor(uid, "Waiting for GoToSocial");
    const page = await world.signIn();
    const authorize = await connectInstance(page, sandbox.url);
    assert.equal(
      authorize.searchParams.get("scope"),
      "read write",
      "GoToSocial lists no scopes: the coarse ones",
    );
    assert.equal(authorize.searchParams.get("code_challenge_method"), null, "it lists no PKCE method");

    await page.getByRole("button", { name: "Authorize" }).click();
    await page.waitForURL((url) => url.origin === world.server.url && url.pathname === "/syndicate/accounts");
    const row = page.locator(`[data-uid="${uid}"]`);
    assert.match((await row.textContent()) ?? "", /runs GoToSocial/);
    await page.screenshot({ path: join(SCREENSHOTS, "accounts-connected-gotosocial.png"), fullPage: true });

    await until("the waiting post reaches GoToSocial", () =>
      sandbox.statuses.some((status) => status.text.startsWith("Waiting for GoToSocial")),
    );
    assert.match(sandbox.statuses[0]?.url ?? "", new RegExp(`^${sandbox.url}/@carol/statuses/\\d+$`));
  });
});
