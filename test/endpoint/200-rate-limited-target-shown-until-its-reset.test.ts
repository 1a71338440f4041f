// Mastodon answers 429 with X-RateLimit-Reset: the page says the target is rate limited and when
// the next try is (the service's reset time), rather than an ordinary failure; a banner says it at
// the top, and the posts it holds back say "Paused: <target> is rate limited, until <time>", not
// "Pending" (decision 0048).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`a rate-limited target on the Syndicate page (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
    });
    after(() => closeServerThenTargets(app, target));

    it("says rate limited, with the next try at the service's reset", async () => {
      assert.ok(app && target);
      const resetAt = new Date(Date.now() + 2 * 60 * 60 * 1000);
      target.sandbox.rateLimit(resetAt);
      await app.createPost({ content: "limited", targets: [target.uid] });
      assert.equal((await app.syndicate()).status, 200);

      const { cookie } = await app.server.signIn();
      const page = await fetch(`${app.url}/syndicate`, { headers: { cookie, accept: "text/html" } });
      const html = await page.text();
      assert.match(html, /class="target state-ratelimited"/);
      assert.match(html, /Rate limited/);
      // What is coming, relative first, then the exact time with its time zone (decision 0024).
      assert.match(
        html,
        /The service asked us to wait: next try in 2 hours \([A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M UTC\)\./,
      );
      assert.match(html, /Mastodon: 429 Too many requests/);
      assert.match(
        html,
        /class="flash flash-warning target-rate-limited"[^>]*>\s*<p>\S+ asked us to slow down \(HTTP 429, too many requests\)\. Its posts are held back and go out by themselves in 2 hours/,
      );
    });

    it("a post that arrives meanwhile is not sent and says it is paused until the reset", async () => {
      assert.ok(app && target);
      const sent = target.sandbox.requests.length;
      await app.createPost({ content: "held back", targets: [target.uid] });
      assert.equal((await app.syndicate()).status, 200);
      assert.equal(target.sandbox.requests.length, sent, "no request during the pause");
      const { cookie } = await app.server.signIn();
      const html = await (
        await fetch(`${app.url}/syndicate`, { headers: { cookie, accept: "text/html" } })
      ).text();
      assert.match(html, /class="target state-paused"/);
      assert.match(
        html,
        /Paused: \S+ is rate limited, until [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M UTC\./,
      );
    });
  });
}
