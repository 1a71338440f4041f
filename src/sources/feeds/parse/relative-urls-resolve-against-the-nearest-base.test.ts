// Relative URLs resolve against the nearest base: content's xml:base, then the entry's, then the
// feed's, then the address the feed came from (RFC 4287 §2; what readers do for RSS); an HTML
// page's <base href>, itself relative, against the page's address. A copy on another service
// cannot follow "/posts/1", and the feed source fetches photos by their absolute URL.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseFeed } from "./index.ts";

describe("relative URLs", () => {
  it("Atom: content's xml:base, then the entry's, then the feed's, then the feed's address", () => {
    const feed = parseFeed({
      url: "https://example.com/feeds/atom.xml",
      body: `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="/blog/">
        <title>t</title><id>urn:f</id><updated>2025-09-01T00:00:00Z</updated><link rel="alternate" href="./"/>
        <link rel="self" href="atom.xml"/><link rel="hub" href="/hub"/>
        <entry xml:base="2025/">
          <id>urn:1</id><title>One</title><updated>2025-09-01T00:00:00Z</updated>
          <link rel="alternate" href="one.html"/>
          <link rel="enclosure" type="image/png" href="../img/one.png"/>
          <content type="html" xml:base="one/">&lt;a href="x"&gt;x&lt;/a&gt; &lt;img srcset="a.png 1x, /b.png 2x" src="a.png"&gt; &lt;a href="mailto:jo@example.com"&gt;m&lt;/a&gt; &lt;a href="#top"&gt;t&lt;/a&gt;</content>
        </entry>
        <entry>
          <id>urn:2</id><title>Two</title><updated>2025-09-01T00:00:00Z</updated><link href="two.html"/>
        </entry>
      </feed>`,
    });
    const [one, two] = feed.entries;
    assert.equal(feed.homeUrl, "https://example.com/blog/");
    // The feed's own address and its WebSub hub: what a subscription names and where it is asked.
    assert.equal(feed.selfUrl, "https://example.com/blog/atom.xml");
    assert.equal(feed.hubUrl, "https://example.com/hub");
    assert.equal(one?.url, "https://example.com/blog/2025/one.html");
    assert.deepEqual(one?.photos, [{ url: "https://example.com/blog/img/one.png" }]);
    assert.equal(
      one?.contentHtml,
      '<a href="https://example.com/blog/2025/one/x">x</a> <img srcset="https://example.com/blog/2025/one/a.png 1x, https://example.com/b.png 2x" src="https://example.com/blog/2025/one/a.png"> <a href="mailto:jo@example.com">m</a> <a href="https://example.com/blog/2025/one/#top">t</a>',
    );
    assert.equal(two?.url, "https://example.com/blog/two.html");
  });

  it("RSS: an item's xml:base, else the channel's, else the feed's address", () => {
    const feed = parseFeed({
      url: "https://example.com/feed/rss.xml",
      body: `<rss version="2.0" xml:base="https://cdn.example.com/site/"><channel><title>t</title><link>/</link>
        <item xml:base="/posts/"><guid>1</guid><link>one</link><enclosure url="one.jpg" type="image/jpeg" length="1"/>
          <description>&lt;img src="in.png"&gt;</description></item>
        <item><guid>2</guid><link>two</link></item>
      </channel></rss>`,
    });
    assert.equal(feed.homeUrl, "https://cdn.example.com/");
    assert.equal(feed.entries[0]?.url, "https://cdn.example.com/posts/one");
    assert.deepEqual(feed.entries[0]?.photos, [{ url: "https://cdn.example.com/posts/one.jpg" }]);
    assert.equal(feed.entries[0]?.contentHtml, '<img src="https://cdn.example.com/posts/in.png">');
    assert.equal(feed.entries[1]?.url, "https://cdn.example.com/site/two");
    const plain = parseFeed({
      url: "https://example.com/feed/rss.xml",
      body: `<rss version="2.0"><channel><title>t</title><item><guid>1</guid><link>one</link></item></channel></rss>`,
    });
    assert.equal(plain.entries[0]?.url, "https://example.com/feed/one");
  });

  it("JSON Feed: against the feed's address", () => {
    const feed = parseFeed({
      url: "https://example.com/feeds/feed.json",
      body: JSON.stringify({
        version: "https://jsonfeed.org/version/1",
        items: [{ id: "1", url: "one", image: "/i.png", content_html: '<a href="two">2</a>' }],
      }),
    });
    assert.equal(feed.entries[0]?.url, "https://example.com/feeds/one");
    assert.deepEqual(feed.entries[0]?.photos, [{ url: "https://example.com/i.png" }]);
    assert.equal(feed.entries[0]?.contentHtml, '<a href="https://example.com/feeds/two">2</a>');
  });

  it("h-feed: a relative <base href> against the page's address", () => {
    const feed = parseFeed({
      url: "https://example.com/notes/page/2/",
      body: `<!doctype html><html><head><base href="/notes/"><title>Notes</title></head><body>
        <div class="h-entry"><a class="u-url" href="one">1</a><div class="e-content"><a href="two">2</a></div>
        <img class="u-photo" src="p.jpg" alt=""></div></body></html>`,
    });
    assert.equal(feed.entries[0]?.url, "https://example.com/notes/one");
    assert.equal(feed.entries[0]?.contentHtml, '<a href="https://example.com/notes/two">2</a>');
    assert.deepEqual(feed.entries[0]?.photos, [{ url: "https://example.com/notes/p.jpg" }]);
  });

  it("keeps only http(s) addresses as a post's link, photos and files", () => {
    const feed = parseFeed({
      url: "https://example.com/feed.xml",
      body: `<rss version="2.0"><channel><title>t</title><item><guid>1</guid><link>javascript:alert(1)</link>
        <enclosure url="file:///etc/passwd" type="image/png" length="1"/>
        <enclosure url="ftp://example.com/a.mp3" type="audio/mpeg" length="1"/></item></channel></rss>`,
    });
    assert.equal(feed.entries[0]?.url, undefined);
    assert.deepEqual(feed.entries[0]?.photos, []);
    assert.deepEqual(feed.entries[0]?.enclosures, []);
  });
});
