// Decision 0034: a post a source learns from elsewhere (a feed's entry) is a row of the
// host's posts with its origin. The syndication core sends it like the site's own; the site's own
// faces never show it: Micropub (q=source by URL and listed page by page, q=category, update,
// delete), the pages store's h-entry page, home h-feed, /feed.xml and /feed.json.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KnownPosts } from "../../src/contract/known-posts.ts";
import {
  type BatchBody,
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
  texts,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";

const ORIGIN = "feed:blog";

for (const engine of engines) {
  describe(`a post from elsewhere never shows on the site's own faces (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    let known: KnownPosts;
    // Under the site's own origin on purpose: were the filters missing, its page would be served.
    let foreignUrl: string;
    const ownUrls: string[] = [];

    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
      const host = app.server.host;
      assert.ok(host.knownPosts);
      known = host.knownPosts;
      foreignUrl = new URL("/elsewhere/from-the-feed/", app.url).href;
      ownUrls.push(
        await app.createPost({ content: "Own older", targets: [], published: "2026-01-01T10:00:00Z" }),
      );
      const recorded = await known.record({
        origin: ORIGIN,
        url: foreignUrl,
        published: new Date("2026-01-02T10:00:00Z"),
        properties: {
          content: "Words from the feed",
          category: ["feedonly"],
          "mp-syndicate-to": [target.uid],
        },
      });
      assert.equal(recorded.outcome, "new");
      assert.equal(recorded.post.origin, ORIGIN);
      ownUrls.push(
        await app.createPost({ content: "Own newer", targets: [], published: "2026-01-03T10:00:00Z" }),
      );
    });
    after(async () => {
      await closeServerThenTargets(app, target);
    });

    const micropub = async (query: string) => {
      assert.ok(app);
      return fetch(`${app.url}/micropub?${query}`, {
        headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
      });
    };

    it("q=source by its URL answers not found; q=source pages list only the site's own", async () => {
      const one = await micropub(`q=source&url=${encodeURIComponent(foreignUrl)}`);
      assert.equal(one.status, 400);
      assert.match(await one.text(), /No post exists/);

      // One post a page, on to older ones: the foreign post sits between the two own posts.
      type Page = {
        items: Array<{ properties: { url: string[] } }>;
        paging: { after?: string; before?: string };
      };
      const page = async (query: string) => (await (await micropub(`q=source&${query}`)).json()) as Page;
      const urls = (found: Page) => found.items.map((item) => item.properties.url[0]);
      const seen: Array<string | undefined> = [];
      let cursor: string | undefined;
      let last: Page | undefined;
      do {
        last = await page(`limit=1${cursor ? `&after=${encodeURIComponent(cursor)}` : ""}`);
        seen.push(...urls(last));
        cursor = last.paging.after;
      } while (cursor);
      assert.deepEqual(seen, [...ownUrls].reverse(), "newest first, own posts only");
      // Back from the oldest page to newer posts.
      assert.ok(last.paging.before);
      const back = await page(`limit=5&before=${encodeURIComponent(last.paging.before)}`);
      assert.deepEqual(urls(back), [ownUrls[1]], "the newer page has no post from elsewhere");
    });

    it("q=category offers only the site's own categories", async () => {
      const body = (await (await micropub("q=category")).json()) as { categories: string[] };
      assert.ok(!body.categories.includes("feedonly"), JSON.stringify(body));
    });

    it("a Micropub update or delete of its URL, or the host's own update, finds no post and changes nothing", async () => {
      assert.ok(app);
      const kept = await known.findByUrl(foreignUrl);
      const token = await app.server.token("update delete");
      for (const request of [
        { action: "update", url: foreignUrl, replace: { content: ["Taken over"] } },
        { action: "delete", url: foreignUrl },
      ]) {
        const response: Response = await fetch(`${app.url}/micropub`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
          },
          body: JSON.stringify(request),
        });
        assert.equal(response.status, 400, `${request.action}: ${await response.text()}`);
      }
      // Nor does the host's own post service behind it, whoever calls it (it publishes to the store).
      const ownPosts = app.server.host.posts;
      assert.ok(ownPosts);
      await assert.rejects(ownPosts.update(foreignUrl, { replace: { content: ["Taken over"] } }), {
        name: "PostNotFoundError",
      });
      const now = await known.findByUrl(foreignUrl);
      assert.deepEqual(now?.properties, kept?.properties);
      assert.equal(now?.deleted, false);
    });

    it("its URL has no page, and the home h-feed, /feed.xml and /feed.json leave it out", async () => {
      assert.ok(app);
      const page = await fetch(foreignUrl);
      assert.equal(page.status, 404);
      await page.body?.cancel();
      for (const path of ["/", "/feed.xml", "/feed.json"]) {
        const text = await (await fetch(`${app.url}${path}`)).text();
        assert.match(text, /Own newer/, `${path} lists the site's own posts`);
        assert.doesNotMatch(
          text,
          /Words from the feed|from-the-feed/,
          `${path} leaves the post from elsewhere out`,
        );
      }
    });

    it("the core lists it and sends it like the site's own, writing the copy's link to its row", async () => {
      assert.ok(app && target);
      const source = app.server.host.postSource;
      assert.ok(source);
      const listed = await source.list({ limit: 10 });
      assert.deepEqual(
        listed.posts.map((post) => [post.url, post.origin]),
        [
          [ownUrls[1], undefined],
          [foreignUrl, ORIGIN],
          [ownUrls[0], undefined],
        ],
      );
      const response = await app.syndicate();
      const body = (await response.json()) as BatchBody;
      assert.equal(response.status, 200);
      assert.equal(body.summary.syndicated, 1);
      assert.deepEqual(
        texts(target).map((text) => text.split("\n")[0]),
        ["Words from the feed"],
      );
      const row = await known.findByUrl(foreignUrl);
      assert.deepEqual(row?.properties.syndication, [target.sandbox.statuses[0]?.url]);
      assert.equal(row?.properties["mp-syndicate-to"], undefined, "its targets are done with");
    });
  });
}
