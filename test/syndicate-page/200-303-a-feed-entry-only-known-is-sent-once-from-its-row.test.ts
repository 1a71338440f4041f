// Decision 0035: the first read of a feed sends nothing; its entries are listed on the page, marked
// with their feed, each with a Send button that asks for the feed's targets and runs the post as the
// row's Syndicate button does: a form is sent back to the page, htmx gets the run's stream. The ledger
// rules: Send twice, or twice at once, and one copy is made; a target skipped stays skipped.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Post } from "../../src/contract/posts.ts";
import { engines } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { browser } from "../server/pages.ts";
import type { SiteEntry } from "../sources/feeds/feed-site.ts";
import { type FeedWorld, startFeedWorld } from "../sources/feeds/feed-world.ts";

const start = Date.now() - 30 * 86_400_000;
const entry = (n: number): SiteEntry => ({
  id: `tag:blog.example,2026:${n}`,
  url: `https://blog.example/2026/05/entry-${n}/`,
  title: `Entry ${n}`,
  content: `<p>Entry ${n}, from the archive.</p>`,
  published: new Date(start + n * 86_400_000).toISOString(),
});

function rowOf(html: string, id: string): string | null {
  const at = html.indexOf(`<li id="post-${id}"`);
  if (at < 0) return null;
  const end = html.indexOf('<li id="post-', at + 1);
  return html.slice(at, end < 0 ? undefined : end);
}

for (const engine of engines) {
  describe(`an entry its feed only knows is sent from its row, once (${engine.name})`, () => {
    let world: FeedWorld;
    let session: { cookie: string; csrf: string };
    const byTitle = new Map<string, Post>();
    before(async () => {
      world = await startFeedWorld(engine, {
        format: "rss",
        prepare: (site) => (site.entries = [entry(4), entry(3), entry(2), entry(1)]),
      });
      await world.readAt(0);
      session = await world.server.signIn();
      for (const post of await world.posts()) byTitle.set(String(post.properties.name), post);
    });
    after(() => world?.close());

    const listHtml = async () => {
      const query = new URLSearchParams({ state: "all", origin: world.feed.origin });
      const response = await fetch(`${world.server.url}/syndicate?${query}`, {
        headers: browser({ cookie: session.cookie }),
      });
      assert.equal(response.status, 200);
      return response.text();
    };
    const idOf = (title: string) => {
      const post = byTitle.get(title);
      assert.ok(post, `${title} is known`);
      return post.id;
    };
    const send = (id: string, headers: Record<string, string> = browser()) =>
      fetch(`${world.server.url}/syndicate/posts/${id}/send-to-feed-targets`, {
        method: "POST",
        redirect: "manual",
        headers: {
          ...headers,
          cookie: session.cookie,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ _csrf: session.csrf, redirect_uri: "/syndicate" }),
      });

    it("the first read sent nothing; each entry is listed with its feed and a Send button", async () => {
      assert.equal(byTitle.size, 4);
      assert.equal(world.target.sandbox.statuses.length, 0);
      assert.equal(await world.awaiting(), 0);
      const html = await listHtml();
      assert.match(html, /<option value="all" selected>All its posts, those not sent too<\/option>/);
      for (const title of ["Entry 1", "Entry 2", "Entry 3", "Entry 4"]) {
        const row = rowOf(html, idOf(title));
        assert.ok(row, `${title} is listed`);
        assert.match(row, /class="post-origin"[^>]*>From the feed “http:\/\/127\.0\.0\.1:\d+\/feed”<\/a>/);
        assert.ok(row.includes(`action="/syndicate/posts/${idOf(title)}/send-to-feed-targets"`), row);
        assert.match(row, /Not sent: its feed only knows it \(the first read of a feed sends nothing\)\./);
        assert.match(row, /<button type="submit" id="syndicate-button-\d+" class="feed-send">.*Send/s);
      }
    });

    it("Send as a form: 303 back to the page, one copy, and the row now shows it sent without a Send button", async () => {
      const id = idOf("Entry 2");
      const response = await send(id);
      assert.equal(response.status, 303);
      assert.equal(response.headers.get("location"), "/syndicate");
      // Sent by the click's own run, or by the scheduler that woke for it: by one of them.
      await eventually("Entry 2 is sent", async () =>
        world.target.sandbox.statuses.length >= 1 && (await world.awaiting()) === 0 ? true : undefined,
      );
      assert.equal(world.target.sandbox.statuses.length, 1);
      assert.match(world.target.sandbox.statuses[0]?.text ?? "", /Entry 2/);
      const row = rowOf(await listHtml(), id) ?? "";
      assert.doesNotMatch(row, /send-to-feed-targets/);
      assert.match(row, /state-syndicated/);
      assert.ok(
        rowOf(await listHtml(), idOf("Entry 1"))?.includes("send-to-feed-targets"),
        "the others keep it",
      );
    });

    it("Send again, or twice at once: the ledger lets one copy out per entry", async () => {
      const again = await send(idOf("Entry 2"));
      assert.equal(again.status, 303);
      assert.equal(world.target.sandbox.statuses.length, 1, "Entry 2 is not sent a second time");
      const id = idOf("Entry 3");
      const answers = await Promise.all([send(id), send(id), send(id)]);
      for (const answer of answers) assert.equal(answer.status, 303);
      await eventually("Entry 3 is sent", async () =>
        world.target.sandbox.statuses.length >= 2 && (await world.awaiting()) === 0 ? true : undefined,
      );
      assert.equal(world.target.sandbox.statuses.length, 2);
      assert.equal(world.target.sandbox.statuses.filter((status) => /Entry 3/.test(status.text)).length, 1);
    });

    it("Send under htmx answers the run's stream, the row replaced by the sent one", async () => {
      const id = idOf("Entry 4");
      const response = await send(id, {
        "hx-request": "true",
        "x-csrf-token": session.csrf,
        accept: "text/html, text/event-stream",
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
      const stream = await response.text();
      assert.match(stream, new RegExp(`<hx-partial[^>]*hx-target="#post-${id}"`));
      await eventually("Entry 4 is sent", async () =>
        world.target.sandbox.statuses.length >= 3 && (await world.awaiting()) === 0 ? true : undefined,
      );
      assert.match(world.target.sandbox.statuses.at(-1)?.text ?? "", /Entry 4/);
      assert.equal(world.target.sandbox.statuses.length, 3);
    });

    it("a target skipped for an entry stays skipped: Send leaves it out", async () => {
      const id = idOf("Entry 1");
      const post = byTitle.get("Entry 1");
      assert.ok(post);
      const syndication = world.plugin.syndication;
      assert.ok(syndication);
      // The post names the target, then the user skips it for this post (the scheduler stopped, so
      // that it does not send the post in between).
      await world.scheduler.stop();
      await world.server.host.postSource?.update(post.url, {
        add: { "mp-syndicate-to": [world.target.uid] },
      });
      await syndication.copies.skip(post.url, world.target.uid);
      const response = await send(id);
      assert.equal(response.status, 303);
      assert.equal(world.target.sandbox.statuses.length, 3, "nothing is sent to a skipped target");
    });
  });
}
