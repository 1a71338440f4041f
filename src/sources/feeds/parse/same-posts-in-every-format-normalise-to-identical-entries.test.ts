// Decision 0034: one site's posts, written as RSS 2.0, RSS 1.0, Atom, JSON Feed and an h-feed,
// normalise to identical entries: the feed source cannot tell which format a site chose, and a site
// that moves from one format to another does not look edited (same keys, same hashes).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fixture } from "../../../../test/helpers/feed-fixtures.ts";
import { type FeedEntry, parseFeed } from "./index.ts";

const SITE = [
  {
    file: "feed.xml",
    url: "https://example.com/feed.xml",
    format: "rss",
    contentType: "application/rss+xml",
  },
  {
    file: "index.rdf",
    url: "https://example.com/index.rdf",
    format: "rdf",
    contentType: "application/rdf+xml",
  },
  { file: "atom.xml", url: "https://example.com/atom.xml", format: "atom", contentType: "text/xml" },
  {
    file: "feed.json",
    url: "https://example.com/feed.json",
    format: "json",
    contentType: "application/feed+json",
  },
  // Served as text/plain: the format comes from the body, never from the label.
  { file: "index.html", url: "https://example.com/", format: "h-feed", contentType: "text/plain" },
] as const;

const read = (site: (typeof SITE)[number]) =>
  parseFeed({ body: fixture("example-site", site.file), contentType: site.contentType, url: site.url });

/** The entry without what only a format can carry (its own choices element, its problems). */
const comparable = ({ choices: _choices, problems: _problems, ...entry }: FeedEntry) => entry;

describe("the example site in five formats", () => {
  const rss = read(SITE[0]);

  it("is detected as each format from its body", () => {
    for (const site of SITE) assert.equal(read(site).format, site.format, site.file);
  });

  it("reads the article as the post it is, with every field normalised", () => {
    const [article] = rss.entries;
    assert.ok(article);
    assert.equal(article.key, "id:https://example.com/posts/hello-feeds");
    assert.equal(article.url, "https://example.com/posts/hello-feeds");
    assert.equal(article.title, "Hello, feeds");
    assert.equal(article.summary, "A short summary of the post.");
    assert.equal(article.published?.toISOString(), "2025-09-01T10:00:00.000Z");
    assert.equal(article.updated?.toISOString(), "2025-09-02T08:30:00.000Z");
    assert.deepEqual(article.categories, ["indieweb", "feeds"]);
    assert.deepEqual(article.photos, [
      { url: "https://example.com/media/hello.jpg", alt: "A sunrise over the sea" },
    ]);
    assert.deepEqual(article.author, { name: "Jo Example" });
    assert.equal(
      article.contentHtml,
      '<p>Feeds are how a site tells the world it wrote something. Read <a href="https://example.com/posts/why-posse">why POSSE</a> first.</p><p><img src="https://example.com/media/inline.png" alt="A diagram"> Two &amp; more, “quoted”.</p>',
    );
    assert.equal(
      article.contentText,
      "Feeds are how a site tells the world it wrote something. Read why POSSE (https://example.com/posts/why-posse) first.\n\nTwo & more, “quoted”.",
    );
    assert.deepEqual(article.properties, {
      type: "entry",
      name: "Hello, feeds",
      content: { html: article.contentHtml, text: article.contentText },
      summary: "A short summary of the post.",
      published: "2025-09-01T10:00:00.000Z",
      updated: "2025-09-02T08:30:00.000Z",
      url: "https://example.com/posts/hello-feeds",
      uid: "https://example.com/posts/hello-feeds",
      category: ["indieweb", "feeds"],
      photo: [{ url: "https://example.com/media/hello.jpg", alt: "A sunrise over the sea" }],
      author: { type: "card", name: "Jo Example" },
    });
  });

  it("reads the note without a name: no title, or one that only repeats the text", () => {
    const note = rss.entries[1];
    assert.equal(note?.title, undefined);
    assert.equal(note?.properties.name, undefined);
    assert.equal(note?.contentText, "Just a note with a link (https://example.com/tags/notes).");
    for (const site of SITE) assert.equal(read(site).entries[1]?.title, undefined, site.file);
  });

  for (const site of SITE.slice(1)) {
    it(`${site.format} gives the same entries, keys and hashes as RSS 2.0`, () => {
      const feed = read(site);
      assert.deepEqual(feed.entries.map(comparable), rss.entries.map(comparable));
      assert.equal(feed.title, "Example Site");
      assert.equal(feed.homeUrl, "https://example.com/");
      assert.equal(feed.hubUrl, "https://hub.example.net/");
      assert.deepEqual(feed.problems, []);
    });
  }
});
