// Issue 12, schedule.whenLive: a new post on a static site is sent automatically only once its URL
// answers 2xx. While the page answers 404 it is checked again with backoff and nothing is sent;
// within the check interval after the deploy it is sent, once. A request (here POST {mountPath})
// sends at once, live or not, as before.
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

const MAX_CHECK_INTERVAL_MS = 400;

for (const engine of engines) {
  describe(`a post answering 404, then 200 (${engine.name})`, () => {
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
          retry: { baseMs: 100, maxMs: MAX_CHECK_INTERVAL_MS },
        },
      });
    });
    after(async () => {
      await app?.close();
      await closeAll(target, site);
    });

    it("sends nothing while the page is missing, and sends it once soon after it is live", async () => {
      assert.ok(app && target && site);
      const url = await app.createPost({ content: "on a static site", targets: [target.uid] });
      const path = new URL(url).pathname;
      assert.ok(url.startsWith(site.url), `the post lives on the site: ${url}`);

      const checks = () => site?.requests.filter((p) => p === path).length ?? 0;
      await until("the page was checked three times", () => checks() >= 3, 10_000);
      assert.equal(target.sandbox.statuses.length, 0, "nothing is sent while the page answers 404");
      const { cookie } = await app.server.signIn();
      const page = await fetch(`${app.endpoint}`, { headers: { cookie, accept: "text/html" } });
      assert.match(
        await page.text(),
        new RegExp(`Waiting for ${url.replaceAll(".", "\\.")} to be live, checked just now`),
      );

      site.deploy(path);
      const deployedAt = Date.now();
      await until("the target has the post", () => target?.sandbox.statuses.length === 1, 10_000);
      const latency = Date.now() - deployedAt;
      assert.ok(latency < MAX_CHECK_INTERVAL_MS + 1_500, `sent ${latency} ms after the deploy`);

      const checksWhenSent = checks();
      await looks(schedulerOf(app));
      assert.equal(target.sandbox.statuses.length, 1, "sent once");
      assert.equal(checks(), checksWhenSent, "a live page is not checked again");
      const properties = await app.source(url);
      assert.deepEqual(properties.syndication, [target.sandbox.statuses[0]?.url]);
    });

    it("sends at once when asked, although the page is still missing", async () => {
      assert.ok(app && target && site);
      const url = await app.createPost({ content: "asked for explicitly", targets: [target.uid] });
      const answer = await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      assert.equal(answer.status, 200);
      assert.equal(target.sandbox.statuses.at(-1)?.text, "asked for explicitly");
    });
  });
}
