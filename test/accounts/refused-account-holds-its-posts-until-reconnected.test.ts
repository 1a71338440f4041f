// A connected account whose token the instance revoked: the scheduler's send is refused (401), the
// page shows the account as needing reconnecting with a Reconnect button, the post waits (pending,
// never failed) and nothing more is sent however often the scheduler looks. Reconnected on the page
// with a new token, the held post goes out by itself, with no further request to syndicate. The
// core and the scheduler run on the test's clock.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { closeAll, type EndpointServer, startEndpointServer, until } from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { looks, ServerClock, schedulerOf } from "../schedule/scheduled-server.ts";

for (const engine of engines) {
  describe(`a connected account whose credentials are refused (${engine.name})`, () => {
    let sandbox: MastodonSandbox;
    let app: EndpointServer;
    let session: { cookie: string; csrf: string };
    const clock = new ServerClock();
    const firstToken = `first-${randomBytes(12).toString("hex")}`;
    const secondToken = `second-${randomBytes(12).toString("hex")}`;
    let uid = "";
    before(async () => {
      sandbox = await startMastodonSandbox({ accessToken: firstToken, user: "alice" });
      app = await startEndpointServer({
        engine,
        targets: [],
        pluginOptions: { schedule: { enabled: true, whenLive: false } },
        config: { fetch: { allowPrivate: true } },
        clock,
      });
      session = await app.server.signIn();
      uid = `${sandbox.url}/@alice`;
    });
    after(async () => {
      await app?.close();
      await closeAll({ sandbox });
    });

    const connect = (accessToken: string) =>
      fetch(`${app.url}/syndicate/accounts/mastodon`, {
        method: "POST",
        headers: {
          cookie: session.cookie,
          accept: "text/html",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ _csrf: session.csrf, instance: sandbox.url, accessToken }),
        redirect: "manual",
      });
    const page = async () =>
      (
        await fetch(`${app.url}/syndicate/accounts`, {
          headers: { cookie: session.cookie, accept: "text/html" },
        })
      ).text();
    const ledger = async () =>
      (
        await app.server.host.database?.query<{ state: string; permanent: boolean }>(
          "SELECT state, permanent FROM syndication_targets WHERE target_uid = $1",
          [uid],
        )
      )?.rows ?? [];
    const refusedSends = () =>
      sandbox.requests.filter((r) => r.method === "POST" && r.path === "/api/v1/statuses" && !r.authorized);

    it("holds the post, pending, while the account needs reconnecting", async () => {
      assert.equal((await connect(firstToken)).status, 303);
      sandbox.setAccessToken(secondToken);
      await app.createPost({ content: "Sent while the token is revoked", targets: [uid] });
      await until("the instance refused the send", () => refusedSends().length === 1);
      await clock.sleeping();
      await looks(schedulerOf(app));
      assert.equal(refusedSends().length, 1, "the refused target is left alone");
      assert.deepEqual(await ledger(), [{ state: "pending", permanent: false }], "waiting, never failed");
      const html = await page();
      assert.match(html, /data-account-state="needsReconnect"/);
      assert.match(html, /needs reconnecting/);
      const reconnect = /href="([^"]+\?reconnect=[^"#]+)#connect-mastodon"/.exec(html)?.[1];
      assert.ok(reconnect, "a Reconnect button leads to the Mastodon form");
      const form = await (
        await fetch(`${app.url}${reconnect.replaceAll("&amp;", "&")}`, {
          headers: { cookie: session.cookie, accept: "text/html" },
        })
      ).text();
      assert.ok(form.includes(`value="${sandbox.url}"`), "the form is filled in with the instance");
      assert.ok(!form.includes(firstToken), "never with the token");
      assert.equal(sandbox.statuses.length, 0);
    });

    it("sends the held post by itself once the account is reconnected", async () => {
      assert.equal((await connect(secondToken)).status, 303);
      await until("the held post went out", () => sandbox.statuses.length === 1);
      assert.equal(sandbox.statuses[0]?.text.startsWith("Sent while the token is revoked"), true);
      await until("the ledger says syndicated", async () => (await ledger())[0]?.state === "syndicated");
      await clock.sleeping();
      await looks(schedulerOf(app));
      assert.equal(sandbox.statuses.length, 1, "once");
      const html = await page();
      assert.match(html, /data-account-state="connected"/);
      assert.doesNotMatch(html, /needs reconnecting/);
    });
  });
}
