// The Feeds section's buttons change what is sent: a stranger gets 401, a forged request riding on
// the owner's session cookie (no CSRF token) 403, a token without the update scope 403, and a feed
// id no configured feed has a readable 404 page in the reader's language (JSON for an API client).
// Send is only for an entry of a configured feed: the site's own post gets 409, an unknown post 404.
// None of them reads the feed or sends anything.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { feedIdOf } from "../../src/plugin/page/feed-view.ts";
import { engines } from "../helpers/databases.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import { browser } from "../server/pages.ts";
import { type FeedWorld, startFeedWorld } from "../sources/feeds/feed-world.ts";

for (const engine of engines) {
  describe(`the feed buttons refuse strangers, forgeries and unknown feeds (${engine.name})`, () => {
    let world: FeedWorld;
    let session: { cookie: string; csrf: string };
    let paths: string[];
    let entryId: string;
    let requestsBefore: number;
    before(async () => {
      world = await startFeedWorld(engine, {
        format: "json",
        prepare: (site) =>
          (site.entries = [
            {
              id: "1",
              url: "https://blog.example/one/",
              title: "One",
              content: "<p>One.</p>",
              published: new Date(Date.now() - 86_400_000).toISOString(),
            },
          ]),
      });
      await world.readAt(0);
      session = await world.server.signIn();
      const [entry] = await world.posts();
      assert.ok(entry);
      entryId = entry.id;
      const id = feedIdOf(world.feed.key);
      paths = [
        `/syndicate/feeds/${id}/fetch`,
        `/syndicate/feeds/${id}/accept`,
        `/syndicate/posts/${entryId}/send-to-feed-targets`,
      ];
      requestsBefore = world.site.requests.length;
    });
    after(() => world?.close());

    const post = (path: string, headers: Record<string, string>, body?: URLSearchParams) =>
      fetch(`${world.server.url}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: body ?? new URLSearchParams(),
      });

    it("401 without a session or a token", async () => {
      for (const path of paths) {
        const response = await post(path, { accept: "application/json" });
        assert.equal(response.status, 401, path);
        assert.equal(((await response.json()) as { error: string }).error, "unauthorized", path);
      }
    });

    it("403 for the session cookie without the CSRF token, or with another session's", async () => {
      const other = await world.server.signIn();
      for (const path of paths) {
        const bare = await post(path, browser({ cookie: session.cookie }));
        assert.equal(bare.status, 403, path);
        await bare.body?.cancel();
        const foreign = await post(
          path,
          browser({ cookie: session.cookie }),
          new URLSearchParams({ _csrf: other.csrf }),
        );
        assert.equal(foreign.status, 403, `${path} with another session's token`);
        await foreign.body?.cancel();
      }
    });

    it("403 for a token without the update scope", async () => {
      const token = await world.server.token("create");
      for (const path of paths) {
        const response = await post(path, { authorization: `Bearer ${token}`, accept: "application/json" });
        assert.equal(response.status, 403, path);
        assert.equal(((await response.json()) as { error: string }).error, "insufficient_scope", path);
      }
    });

    it("none of the refused requests read the feed or sent anything", () => {
      assert.equal(world.site.requests.length, requestsBefore);
      assert.equal(world.target.sandbox.statuses.length, 0);
    });

    it("404 for a feed id no configured feed has: a readable page in the reader's language, JSON for an API", async () => {
      for (const action of ["fetch", "accept"]) {
        const path = `/syndicate/feeds/not-a-feed/${action}`;
        const english = await post(
          path,
          browser({ cookie: session.cookie }),
          new URLSearchParams({ _csrf: session.csrf }),
        );
        assert.equal(english.status, 404, path);
        assert.match(english.headers.get("content-type") ?? "", /text\/html/);
        const page = await english.text();
        assert.match(page, /There is no feed with this id\. It may have been removed from the feeds option/);
        assert.doesNotMatch(page, /at \w+ \(|node_modules|Error:/, "no stack trace");
        const german = await post(
          path,
          browser({ cookie: session.cookie, "accept-language": "de" }),
          new URLSearchParams({ _csrf: session.csrf }),
        );
        assert.equal(german.status, 404);
        assert.match(await german.text(), /Es gibt keinen Feed mit dieser ID/);
      }
      const token = await world.server.token("create update");
      const api = await post("/syndicate/feeds/not-a-feed/fetch", {
        authorization: `Bearer ${token}`,
        accept: "application/json",
      });
      assert.equal(api.status, 404);
      const body = (await api.json()) as { error: string; error_description: string };
      assert.equal(body.error, "not_found");
      assert.match(body.error_description, /There is no feed with this id/);
    });

    it("Send: 404 for an unknown post, 409 for the site's own post (no feed to take targets from)", async () => {
      const token = await world.server.token("create update");
      const api = { authorization: `Bearer ${token}`, accept: "application/json" };
      const unknown = await post("/syndicate/posts/987654321/send-to-feed-targets", api);
      assert.equal(unknown.status, 404);
      await unknown.body?.cancel();
      const own = await createPostAt(world.server.url, token, {
        content: "The site's own words",
        targets: [],
      });
      const ownPost = await world.server.host.postSource?.findByUrl(own);
      assert.ok(ownPost);
      const refused = await post(`/syndicate/posts/${ownPost.id}/send-to-feed-targets`, api);
      assert.equal(refused.status, 409);
      assert.match(
        ((await refused.json()) as { error_description: string }).error_description,
        /no entry of a configured feed/,
      );
      assert.equal(world.target.sandbox.statuses.length, 0, "nothing was sent");
    });
  });
}
