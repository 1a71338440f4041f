// Decision 0015, schedule.whenLive: a post whose page is still not live a day after its first check is
// no longer checked or sent by itself: it waits for the user, is counted among the posts that need
// them, and the page says why. A click then sends it. The server's core and scheduler tell time by
// the test's clock, so the day passes at once.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { until } from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { healthOf } from "../helpers/health.ts";
import { looks, schedulerOf } from "./scheduled-server.ts";
import { whenLiveServer } from "./when-live-server.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

for (const engine of engines) {
  describe(`a post not live after a day (${engine.name})`, () => {
    const live = whenLiveServer(engine);
    const { clock } = live;

    it("stops checking, sends nothing by itself, says so, and sends when the user asks", async () => {
      const { app, target, site } = live;
      const database = app.server.host.database;
      assert.ok(database);
      const url = await app.createPost({ content: "never deployed in time", targets: [target.uid] });
      const path = new URL(url).pathname;
      const checks = () => site.requests.filter((p) => p === path).length;
      await until("the page was checked", () => checks() === 1);
      const gaveUp = async () =>
        (await database.query<{ gave_up: boolean }>("SELECT gave_up FROM syndication_live_checks")).rows[0]
          ?.gave_up === true;

      // A day after the first check, to the millisecond, it is checked again and still waits.
      await clock.advance(DAY_MS);
      await until("the page was checked a day later", () => checks() === 2);
      await looks(schedulerOf(app));
      assert.equal(await gaveUp(), false, "not given up at exactly a day");
      // The next check, past the day, gives up.
      await clock.advance(HOUR_MS);
      await until("the next check gives up", gaveUp);
      assert.equal(checks(), 3);

      // Long after: its next check, were there one, would be due.
      await clock.advance(DAY_MS);
      site.deploy(path);
      const checksThen = checks();
      // Another post going out runs a batch over every awaiting post, the one that gave up included.
      const other = await app.createPost({ content: "deployed in time", targets: [target.uid] });
      site.deploy(new URL(other).pathname);
      await until("the other post is sent", () => target.sandbox.statuses.length === 1);
      await looks(schedulerOf(app));
      assert.equal(checks(), checksThen, "no more checks once it gave up");
      assert.deepEqual(
        target.sandbox.statuses.map((status) => status.text),
        ["deployed in time"],
        "the post that gave up is not sent by itself, live or not",
      );

      const health = (await healthOf(app.server)) as Record<string, unknown>;
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
