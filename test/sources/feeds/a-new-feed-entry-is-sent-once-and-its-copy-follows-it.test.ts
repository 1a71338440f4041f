// Decision 0034: a site that publishes only a feed, in each format (RSS 2.0, RSS 1.0/RDF, Atom, JSON Feed, h-feed).
// The first read sends nothing (every entry known); a new entry is sent once to the sandbox Mastodon
// with no request to possekit; read again, nothing; edited, the copy is edited once; removed from
// the feed, the copy stays.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../../helpers/databases.ts";
import { SITE_FORMATS, type SiteEntry } from "./feed-site.ts";
import { eventually, type FeedWorld, startFeedWorld } from "./feed-world.ts";

const PUT = /^\/api\/v1\/statuses\/\d+$/;
const DELETE = /^\/api\/v1\/statuses\/\d+$/;
const day = (n: number) => new Date(Date.UTC(2026, 2, n, 9)).toISOString();

const archive: SiteEntry[] = [2, 1].map((n) => ({
  id: `tag:blog.example,2026:${n}`,
  url: `https://blog.example/2026/03/post-${n}/`,
  title: `Old post ${n}`,
  content: `<p>Written on day ${n}.</p>`,
  published: day(n),
}));

for (const engine of engines)
  for (const format of SITE_FORMATS)
    describe(`a feed entry is sent once and its copy follows it (${format}, ${engine.name})`, () => {
      let world: FeedWorld | undefined;
      before(async () => {
        world = await startFeedWorld(engine, {
          format,
          prepare: (site) => {
            site.entries = [...archive];
          },
        });
      });
      after(async () => {
        await world?.close();
      });

      it("sends nothing at the first read, a new entry once, edits its copy once, keeps it when dropped", async () => {
        assert.ok(world);
        const { site, target } = world;
        const first = await world.readAt(0);
        assert.equal(first.state, "ok", first.lastError ?? "");
        assert.equal(first.entriesKnown, 2);
        assert.equal((await world.posts()).length, 2, "every entry is known");
        assert.equal(await world.awaiting(), 0, "none waits to be sent");
        assert.equal(target.sandbox.statuses.length, 0);

        const fresh: SiteEntry = {
          id: "tag:blog.example,2026:3",
          url: "https://blog.example/2026/03/post-3/",
          title: "A new post",
          content: "<p>Fresh from the site.</p>",
          published: day(3),
        };
        site.entries = [fresh, ...archive];
        await world.nextRead();
        await eventually("the copy's link is in the post", async () => {
          const post = (await world?.posts())?.find((candidate) => candidate.url === fresh.url);
          const links = post?.properties.syndication;
          return Array.isArray(links) && links.length === 1 ? true : undefined;
        });
        assert.equal(target.sandbox.statuses.length, 1, "sent once");
        assert.match(target.sandbox.statuses[0]?.text ?? "", /A new post/);

        const again = await world.nextRead();
        assert.equal(again.entriesKnown, 3);
        assert.equal(await world.awaiting(), 0);
        assert.equal(target.sandbox.statuses.length, 1, "the same entry read again is nothing new");

        site.entries = [
          { ...fresh, title: "A new post, corrected", content: "<p>Fresh, and fixed.</p>" },
          ...archive,
        ];
        await world.nextRead();
        await eventually("the copy is edited", async () =>
          world?.requests("PUT", PUT) === 1 ? true : undefined,
        );
        assert.match(target.sandbox.statuses[0]?.text ?? "", /A new post, corrected/);
        await world.nextRead();
        assert.equal(world.requests("PUT", PUT), 1, "edited once");
        assert.equal(target.sandbox.statuses.length, 1, "never a second copy");

        site.entries = [...archive];
        const dropped = await world.nextRead();
        assert.equal(dropped.entriesKnown, 3);
        const kept = (await world.posts()).find((post) => post.url === fresh.url);
        assert.ok(kept, "the post is kept");
        assert.deepEqual(kept.properties.syndication, [target.sandbox.statuses[0]?.url]);
        assert.equal(world.requests("DELETE", DELETE), 0, "its copy is never deleted");
      });
    });
