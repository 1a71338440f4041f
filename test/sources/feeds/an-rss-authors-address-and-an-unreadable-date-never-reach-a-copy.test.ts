// A site's RSS feed as real ones are written, read by a running feed source over HTTP on 127.0.0.1
// and sent to the sandbox Mastodon: the author given as "jo@blog.example (Jo Doe)" reaches the
// copy through {{author_name}} as "Jo Doe", never with the address; a bare address gives no name;
// a date in JavaScript's Date.toString() form is read and the entry sent; a new entry whose date
// possekit cannot read is recorded but not sent, since it may be an old one.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../../helpers/databases.ts";
import type { SiteEntry } from "./feed-site.ts";
import { eventually, type FeedWorld, startFeedWorld } from "./feed-world.ts";

const archive: SiteEntry[] = [
  {
    id: "tag:blog.example,2026:1",
    url: "https://blog.example/2026/03/old/",
    title: "Old post",
    content: "<p>Known before.</p>",
    published: new Date(Date.UTC(2026, 2, 1, 9)).toISOString(),
  },
];
const byAuthor = { format_string: "{{title}} by {{author_name}}", append_url: false };

for (const engine of engines)
  describe(`an RSS author's address and an unreadable date never reach a copy (${engine.name})`, () => {
    let world: FeedWorld | undefined;
    before(async () => {
      world = await startFeedWorld(engine, {
        format: "rss",
        prepare: (site) => {
          site.entries = [...archive];
        },
      });
    });
    after(async () => {
      await world?.close();
    });

    it("sends the author's name alone, and holds back the entry it cannot date", async () => {
      assert.ok(world);
      const { site, target } = world;
      const first = await world.readAt(0);
      assert.equal(first.state, "ok", first.lastError ?? "");
      assert.equal(target.sandbox.statuses.length, 0, "the baseline sends nothing");

      // Written "now" by the world's clock, in the form JavaScript's Date.toString() prints.
      const now = new Date(world.clock.now());
      const weekday = now.toUTCString().slice(0, 3);
      const [, month, day, year] = now.toUTCString().match(/^\w+, (\d+) (\w+) (\d+)/) ?? [];
      const time = now.toISOString().slice(11, 19);
      const named: SiteEntry = {
        id: "tag:blog.example,2026:named",
        url: "https://blog.example/2026/03/named/",
        title: "Named",
        content: "<p>By Jo.</p>",
        author: "jo@blog.example (Jo Doe)",
        pubDate: `${weekday} ${day} ${month} ${year} ${time} GMT+0000 (Coordinated Universal Time)`,
        posse: byAuthor,
      };
      const bare: SiteEntry = {
        id: "tag:blog.example,2026:bare",
        url: "https://blog.example/2026/03/bare/",
        title: "Bare",
        content: "<p>By an address.</p>",
        author: "jo@blog.example",
        published: now.toISOString(),
        posse: byAuthor,
      };
      const undatable: SiteEntry = {
        id: "tag:blog.example,2009:from-the-archive",
        url: "https://blog.example/2009/03/archive/",
        title: "From the archive",
        content: "<p>Long ago.</p>",
        pubDate: "le 3 mars de l'an 2009",
      };
      site.entries = [named, bare, undatable, ...archive];
      const read = await world.nextRead();
      assert.equal(read.state, "ok", read.lastError ?? "");
      await eventually("both dated entries are sent", async () =>
        target.sandbox.statuses.length >= 2 && (await world?.awaiting()) === 0 ? true : undefined,
      );
      const texts = target.sandbox.statuses.map((status) => status.text).sort();
      assert.deepEqual(texts, ["Bare by", "Named by Jo Doe"]);
      assert.ok(!JSON.stringify(target.sandbox.statuses).includes("@blog.example"));

      const posts = await world.posts();
      const held = posts.find((post) => post.url === undatable.url);
      assert.ok(held, "the entry it cannot date is recorded");
      assert.deepEqual(held.properties.syndication ?? [], [], "and not sent");
      assert.ok(
        read.notes.some((note) =>
          note.includes(`"From the archive" is new but its date "le 3 mars de l'an 2009" could not be read`),
        ),
        read.notes.join("\n"),
      );
      assert.ok(!JSON.stringify(posts).includes("jo@blog.example"), "no post holds the address");
    });
  });
