// Identity (decision 0036): an entry is known by its id (Atom id, RSS guid, rdf:about, JSON Feed
// id, h-entry uid), else its URL, else a hash of its content; the fields stay apart for the feed
// source. Two entries with one id are reported and the later one set aside, never both stored
// under one key. A huge entry is read whole, without a crash.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseFeed } from "./index.ts";

const URL = "https://example.com/feed.xml";
const rss = (items: string) =>
  parseFeed({ url: URL, body: `<rss version="2.0"><channel><title>t</title>${items}</channel></rss>` });

describe("entry identity", () => {
  it("is the id when there is one, kept apart from the URL", () => {
    const [entry] = rss(
      "<item><guid isPermaLink='false'>tag:example.com,2025:1</guid><link>/a</link></item>",
    ).entries;
    assert.equal(entry?.key, "id:tag:example.com,2025:1");
    assert.equal(entry?.id, "tag:example.com,2025:1");
    assert.equal(entry?.url, "https://example.com/a");
  });

  it("is the URL without an id, and a guid that is a permalink is both", () => {
    const [byUrl, byGuid] = rss(
      "<item><link>/a</link><description>x</description></item><item><guid>https://example.com/b</guid></item>",
    ).entries;
    assert.equal(byUrl?.key, "url:https://example.com/a");
    assert.equal(byUrl?.id, undefined);
    assert.equal(byGuid?.key, "id:https://example.com/b");
    assert.equal(byGuid?.url, "https://example.com/b");
  });

  it("a guid marked isPermaLink=false is not taken for the URL", () => {
    const [entry] = rss("<item><guid isPermaLink='false'>https://example.com/b</guid></item>").entries;
    assert.equal(entry?.url, undefined);
  });

  it("is a hash of the content without id and URL: the same text, the same key; another text, another", () => {
    const feed = rss(
      "<item><description>A note</description></item><item><description>Another note</description></item>",
    );
    const again = rss("<item><description>A note</description></item>");
    const [first, second] = feed.entries;
    assert.match(first?.key ?? "", /^hash:[0-9a-f]{64}$/);
    assert.equal(first?.key, again.entries[0]?.key);
    assert.notEqual(first?.key, second?.key);
  });

  it("the content hash changes with the text and not with the dates", () => {
    const [a] = rss(
      "<item><guid>1</guid><description>Text</description><pubDate>Mon, 01 Sep 2025 12:00:00 GMT</pubDate></item>",
    ).entries;
    const [redated] = rss(
      "<item><guid>1</guid><description>Text</description><pubDate>Tue, 02 Sep 2025 12:00:00 GMT</pubDate></item>",
    ).entries;
    const [edited] = rss("<item><guid>1</guid><description>Text, edited</description></item>").entries;
    assert.equal(a?.contentHash, redated?.contentHash);
    assert.notEqual(a?.contentHash, edited?.contentHash);
  });

  it("reports two entries with one id and keeps the first", () => {
    const feed = rss(
      "<item><guid>same</guid><title>First</title></item><item><guid>other</guid></item><item><guid>same</guid><title>Second</title></item>",
    );
    assert.deepEqual(
      feed.entries.map((entry) => [entry.key, entry.title]),
      [
        ["id:same", "First"],
        ["id:other", undefined],
      ],
    );
    assert.deepEqual(feed.problems, [
      {
        kind: "duplicate-id",
        entry: "id:same",
        message:
          'Two entries have the id "same": the later one ("Second") is ignored until the site gives it an id of its own.',
      },
    ]);
  });

  it("reads an entry of 2 MB whole", () => {
    const paragraph = `<p>${"A long paragraph of text, with <a href='/x'>a link</a> in it. ".repeat(40)}</p>`;
    const html = paragraph.repeat(Math.ceil((2 * 1024 * 1024) / paragraph.length));
    const feed = rss(`<item><guid>big</guid><description><![CDATA[${html}]]></description></item>`);
    const [entry] = feed.entries;
    assert.equal(entry?.key, "id:big");
    assert.ok((entry?.contentText?.length ?? 0) > 1.5 * 1024 * 1024);
    assert.ok(entry?.contentHtml?.endsWith("in it. </p>"));
  });

  it("reads content nested 100,000 elements deep without exhausting the stack", () => {
    const deep = `${"<div>".repeat(100_000)}deep${"</div>".repeat(100_000)}`;
    const feed = parseFeed({
      url: "https://example.com/feed.json",
      body: JSON.stringify({
        version: "https://jsonfeed.org/version/1.1",
        items: [{ id: "1", content_html: deep }],
      }),
    });
    assert.equal(feed.entries[0]?.key, "id:1");
  });
});
