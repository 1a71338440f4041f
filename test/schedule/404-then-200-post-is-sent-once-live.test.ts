// Decision 0015, schedule.whenLive: a new post on a static site is sent automatically only once its URL
// answers 2xx. While the page answers 404 it is checked again with backoff (check n waits 2^n
// minutes, at the defaults) and nothing is sent; at the first check after the deploy it is sent,
// once. A request (here POST {mountPath}) sends at once, live or not, as before. The server's core
// and scheduler tell time by the test's clock, so the minutes of backoff take no time.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { until } from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { looks, schedulerOf } from "./scheduled-server.ts";
import { whenLiveServer } from "./when-live-server.ts";

const MINUTE = 60_000;

for (const engine of engines) {
  describe(`a post answering 404, then 200 (${engine.name})`, () => {
    const live = whenLiveServer(engine);
    const { clock } = live;

    it("sends nothing while the page is missing, checking it with backoff, and sends it once at the check after the deploy", async () => {
      const { app, target, site } = live;
      const scheduler = schedulerOf(app);
      const url = await app.createPost({ content: "on a static site", targets: [target.uid] });
      const path = new URL(url).pathname;
      assert.ok(url.startsWith(site.url), `the post lives on the site: ${url}`);
      const checks = () => site.requests.filter((p) => p === path).length;

      await until("the page was checked", () => checks() === 1);
      // Check n waits 2^n minutes: the second comes 2 minutes after the first, the third 4 after that.
      for (const [check, waitMs] of [
        [2, 2 * MINUTE],
        [3, 4 * MINUTE],
      ] as const) {
        await clock.advance(waitMs - 1);
        await looks(scheduler);
        assert.equal(checks(), check - 1, `check ${check} is not made a millisecond early`);
        await clock.advance(1);
        await until(`check ${check} was made`, () => checks() === check);
      }
      assert.equal(target.sandbox.statuses.length, 0, "nothing is sent while the page answers 404");
      const { cookie } = await app.server.signIn();
      const page = await fetch(`${app.endpoint}`, { headers: { cookie, accept: "text/html" } });
      assert.match(
        await page.text(),
        new RegExp(`Waiting for ${url.replaceAll(".", "\\.")} to be live, checked just now`),
      );

      site.deploy(path);
      await looks(scheduler);
      assert.equal(target.sandbox.statuses.length, 0, "not sent before the next check finds it live");
      await clock.advance(8 * MINUTE);
      await until("the target has the post", () => target.sandbox.statuses.length === 1);
      assert.equal(checks(), 4, "the fourth check found it live");

      await looks(scheduler);
      await clock.advance(86_400_000);
      await looks(scheduler);
      assert.equal(target.sandbox.statuses.length, 1, "sent once");
      assert.equal(checks(), 4, "a live page is not checked again");
      const properties = await app.source(url);
      assert.deepEqual(properties.syndication, [target.sandbox.statuses[0]?.url]);
    });

    it("sends at once when asked, although the page is still missing", async () => {
      const { app, target } = live;
      const url = await app.createPost({ content: "asked for explicitly", targets: [target.uid] });
      const answer = await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      assert.equal(answer.status, 200);
      assert.equal(target.sandbox.statuses.at(-1)?.text, "asked for explicitly");
    });
  });
}
