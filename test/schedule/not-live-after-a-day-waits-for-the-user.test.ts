// Issue 12, schedule.whenLive: a post whose page is still not live a day after its first check is
// no longer checked or sent by itself: it waits for the user, is counted among the posts that need
// them, and the page says why. A click then sends it. (The day is shortened by moving the first
// check back in the database, as a day passing would.)
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
  until,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { looks, schedulerOf } from "./scheduled-server.ts";
import { type StaticSite, startStaticSite } from "./static-site.ts";

for (const engine of engines) {
  describe(`a post not live after a day (${engine.name})`, () => {
    let target: Target | undefined;
    let site: StaticSite | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      target = await startTarget();
      site = await startStaticSite();
      app = await startEndpointServer({
        engine,
        targets: [target],
        config: { publication: { me: site.url } },
        pluginOptions: {
          schedule: { enabled: true, whenLive: true, maxSleepMs: 200 },
          retry: { baseMs: 100, maxMs: 300 },
        },
      });
    });
    after(async () => {
      await app?.close();
      await closeAll(target, site);
    });

    it("stops checking, sends nothing by itself, says so, and sends when the user asks", async () => {
      assert.ok(app && target && site);
      const database = app.server.host.database;
      assert.ok(database);
      const url = await app.createPost({ content: "never deployed in time", targets: [target.uid] });
      const path = new URL(url).pathname;
      const checks = () => site?.requests.filter((p) => p === path).length ?? 0;
      await until("the page was checked", () => checks() >= 1, 10_000);
      // The site sees the request before the answer is recorded: move back a check that exists.
      const recorded = async () =>
        (await database.query("SELECT 1 FROM syndication_live_checks WHERE checks >= 1")).rows.length > 0;
      await until("the first check is recorded", recorded, 10_000);

      await database.query(
        "UPDATE syndication_live_checks SET first_checked_at = now() - interval '25 hours'",
      );
      const gaveUp = async () =>
        (await database.query<{ gave_up: boolean }>("SELECT gave_up FROM syndication_live_checks")).rows[0]
          ?.gave_up === true;
      await until("the next check gives up", gaveUp, 10_000);

      // Long after: its next check, were there one, would be due.
      await database.query("UPDATE syndication_live_checks SET next_check_at = now() - interval '1 minute'");
      site.deploy(path);
      const checksThen = checks();
      // Another post going out runs a batch over every awaiting post, the one that gave up included.
      const other = await app.createPost({ content: "deployed in time", targets: [target.uid] });
      site.deploy(new URL(other).pathname);
      await until("the other post is sent", () => target?.sandbox.statuses.length === 1, 10_000);
      await looks(schedulerOf(app));
      assert.equal(checks(), checksThen, "no more checks once it gave up");
      assert.deepEqual(
        target.sandbox.statuses.map((status) => status.text),
        ["deployed in time"],
        "the post that gave up is not sent by itself, live or not",
      );

      const health = (await (await fetch(`${app.url}/health`)).json()) as Record<string, unknown>;
      assert.match(JSON.stringify(health), /"posts_needing_user":1\b/);
      const { cookie } = await app.server.signIn();
      const page = await (await fetch(app.endpoint, { headers: { cookie, accept: "text/html" } })).text();
      assert.match(page, new RegExp(`${url.replaceAll(".", "\\.")} was not live after a day`));

      const sent = await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      assert.equal(sent.status, 200);
      assert.equal(target.sandbox.statuses.length, 2, "sent once, when asked");
    });
  });
}
