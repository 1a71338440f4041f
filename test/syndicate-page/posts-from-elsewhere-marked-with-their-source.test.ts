// Decision 0040: posts from elsewhere (a feed's entries, a remote Micropub server's posts) appear in
// the Syndicate page's list like the site's own, marked with where they come from in the reader's
// language, as a link to the list of that source's posts; the results page of such a post says it
// too. A filter by source lists one source's posts, or the site's own.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { browser } from "../server/pages.ts";

/** The page's row of a post: its <li> up to the next one. */
function rowOf(html: string, id: string): string | null {
  const start = html.indexOf(`<li id="post-${id}"`);
  if (start < 0) return null;
  const end = html.indexOf('<li id="post-', start + 1);
  return html.slice(start, end < 0 ? undefined : end);
}

const decode = (html: string) =>
  html.replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&#34;", '"');

for (const engine of engines) {
  describe(`posts from elsewhere are marked with their source on the page (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    let cookie = "";
    const ids = { own: "", feed: "", remote: "" };

    before(async () => {
      ({ target, app } = await startWithOneTarget(engine, {
        pluginOptions: { targets: { checkAtStart: false }, schedule: { enabled: false } },
      }));
      ({ cookie } = await app.server.signIn());
      const known = app.server.host.knownPosts;
      const posts = app.server.host.postSource;
      assert.ok(known && posts);
      const own = await app.createPost({ content: "The site's own words", targets: [target.uid] });
      ids.own = (await posts.findByUrl(own))?.id ?? "";
      const record = async (origin: string, url: string, content: string) =>
        (
          await known.record({
            origin,
            url,
            published: new Date(),
            properties: { content, "mp-syndicate-to": [target?.uid ?? ""] },
          })
        ).post.id;
      ids.feed = await record(
        "feed:blog",
        "https://blog.example/notes/from-the-feed/",
        "Words from the feed",
      );
      ids.remote = await record(
        "micropub:journal",
        "https://journal.example/2026/1/",
        "Words from the journal",
      );
      assert.ok(ids.own && ids.feed && ids.remote);
    });
    after(() => closeServerThenTargets(app, target));

    const page = async (path: string, language = "en") => {
      assert.ok(app);
      const response = await fetch(`${app.url}${path}`, {
        headers: browser({ cookie, "accept-language": language }),
      });
      assert.equal(response.status, 200, path);
      return response.text();
    };

    it("lists every awaiting post, each from elsewhere marked with its source, the own one not", async () => {
      const html = await page("/syndicate");
      const own = rowOf(html, ids.own);
      const feed = rowOf(html, ids.feed);
      const remote = rowOf(html, ids.remote);
      assert.ok(own && feed && remote, "all three posts are listed");
      assert.doesNotMatch(own, /post-origin/);
      assert.match(feed, /class="post-origin"[^>]*>From the feed “blog”<\/a>/);
      assert.match(remote, /class="post-origin"[^>]*>From the Micropub server “journal”<\/a>/);
      // The mark links to that source's posts.
      const href = decode(/class="post-origin"[^>]*href="([^"]+)"/.exec(feed)?.[1] ?? "");
      assert.equal(href, "/syndicate?state=all&origin=feed%3Ablog");
    });

    it("says it in German and in French", async () => {
      const german = rowOf(await page("/syndicate", "de"), ids.feed);
      assert.match(german ?? "", />Aus dem Feed „blog“<\/a>/);
      const french = rowOf(await page("/syndicate", "fr"), ids.remote);
      assert.match(french ?? "", />Du serveur Micropub «\s?journal\s?»<\/a>/);
    });

    it("filters by source: one source's posts, or the site's own", async () => {
      const feedOnly = await page("/syndicate?state=all&origin=feed%3Ablog");
      assert.ok(rowOf(feedOnly, ids.feed));
      assert.equal(rowOf(feedOnly, ids.own), null);
      assert.equal(rowOf(feedOnly, ids.remote), null);
      assert.match(feedOnly, /<option value="feed:blog" selected>From the feed “blog”<\/option>/);

      const ownOnly = await page("/syndicate?origin=own");
      assert.ok(rowOf(ownOnly, ids.own));
      assert.equal(rowOf(ownOnly, ids.feed), null);
      assert.equal(rowOf(ownOnly, ids.remote), null);
      assert.match(ownOnly, /<option value="micropub:journal">From the Micropub server “journal”<\/option>/);

      // A source nobody knows lists nothing rather than everything.
      const unknown = await page("/syndicate?state=all&origin=feed%3Anowhere");
      for (const id of Object.values(ids)) assert.equal(rowOf(unknown, id), null);
    });

    it("the results page of a post from elsewhere says where it comes from", async () => {
      const html = await page(`/syndicate/posts/${ids.remote}`);
      assert.match(html, /class="post-origin"[^>]*>From the Micropub server “journal”<\/a>/);
      assert.doesNotMatch(await page(`/syndicate/posts/${ids.own}`), /class="post-origin"/);
    });
  });
}
