// The owner's actions from sign-in to a first copy on the sandbox Mastodon, counted in a real
// browser (Chromium): sign in; type the instance under "Connect with your instance" and press it;
// press Authorize on the instance's own page. The post written before (through Micropub, naming the
// account) then goes out by itself. At most four actions are allowed; none edits a file or
// restarts the server, which keeps running throughout and has the account as a target at once.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { until } from "../helpers/eventually.ts";
import { type AccountsPageWorld, connectInstance, startAccountsPageWorld } from "./accounts-page-world.ts";
import { SCREENSHOTS } from "./syndicate-world.ts";

describe("Connecting Mastodon in the browser", () => {
  let sandbox: MastodonSandbox;
  let world: AccountsPageWorld;

  before(async () => {
    sandbox = await startMastodonSandbox({
      accessToken: "configured-unused",
      user: "alice",
      name: "Sandbox Mastodon",
    });
    world = await startAccountsPageWorld();
  });
  after(async () => {
    await world?.close();
    await sandbox?.close();
  });

  it("takes three of the owner's actions from sign-in to the first copy", async () => {
    const uid = `${sandbox.url}/@alice`;
    // Written earlier from a Micropub client, naming the account the owner is about to connect.
    await world.postWaitingFor(uid, "My first post for Mastodon");

    const actions: string[] = [];
    actions.push("sign in");
    const page = await world.signIn();

    actions.push("type the instance and press Connect with your instance");
    const authorize = await connectInstance(page, sandbox.url);
    assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
    assert.match(
      (await page.locator("main").textContent()) ?? "",
      /possekit would like permission to access your account/,
    );

    actions.push("press Authorize on the instance");
    await page.getByRole("button", { name: "Authorize" }).click();
    await page.waitForURL((url) => url.origin === world.server.url && url.pathname === "/syndicate/accounts");
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
    assert.ok(world.server.host.syndicators.some((syndicator) => syndicator.info.uid === uid));
    const copy = sandbox.statuses.find((status) => status.text.startsWith("My first post"));
    assert.equal(copy?.username, "alice");
  });
});
