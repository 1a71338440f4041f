// Decision 0038: the site chooses per entry, with POSSE Party's <posse:post> (Atom, and RSS),
// a JSON Feed `_posse` object, or an h-entry's mp-syndicate-to; each is validated field by field
// and merged into one `choices` value. A malformed choice is ignored with a reason recorded on the
// entry (and the feed's problems), never a crash, and never at the cost of the entry itself.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseFeed } from "./index.ts";

const atom = (posse: string, prefix = "posse") =>
  parseFeed({
    url: "https://example.com/atom.xml",
    body: `<feed xmlns="http://www.w3.org/2005/Atom" xmlns:${prefix}="https://posseparty.com/2024/Feed">
      <title>t</title><id>urn:f</id><updated>2025-09-01T00:00:00Z</updated>
      <entry><id>urn:1</id><title>One</title><updated>2025-09-01T00:00:00Z</updated><content>Text</content>${posse}</entry>
      <entry><id>urn:2</id><title>Two</title><updated>2025-09-01T00:00:00Z</updated><content>Text</content></entry>
    </feed>`,
  });

const jsonFeed = (posse: unknown) =>
  parseFeed({
    url: "https://example.com/feed.json",
    body: JSON.stringify({
      version: "https://jsonfeed.org/version/1.1",
      items: [{ id: "1", content_text: "Text", _posse: posse }],
    }),
  });

describe("per-entry choices", () => {
  it("reads POSSE Party's <posse:post> JSON: entry-wide fields and per-platform overrides", () => {
    const feed = atom(`<posse:post format="json"><![CDATA[
      {
        "format_string": "{{title}} {{url}}",
        "truncate": true,
        "append_url": false,
        "append_url_spacer": " ",
        "og_image": "https://example.com/card.jpg",
        "platform_overrides": {
          "bsky": {"attach_link": true, "format_string": "{{title}}"},
          "instagram": {"syndicate": false}
        }
      }
    ]]></posse:post>`);
    const [one, two] = feed.entries;
    assert.deepEqual(one?.choices, {
      formatString: "{{title}} {{url}}",
      truncate: true,
      appendUrl: false,
      perTarget: { bsky: { formatString: "{{title}}" }, instagram: { syndicate: false } },
      sources: ["posse:post"],
    });
    assert.deepEqual(one?.problems, []);
    assert.equal(two?.choices, undefined);
    assert.deepEqual(feed.problems, []);
  });

  it("finds the element whatever prefix the feed binds the namespace to, and in RSS items too", () => {
    assert.equal(atom(`<pp:post>{"syndicate": false}</pp:post>`, "pp").entries[0]?.choices?.syndicate, false);
    const ownNamespace = atom(`<post xmlns="https://posseparty.com/2024/Feed">{"append_url": true}</post>`);
    assert.equal(ownNamespace.entries[0]?.choices?.appendUrl, true);
    const rss = parseFeed({
      url: "https://example.com/feed.xml",
      body: `<rss version="2.0" xmlns:posse="https://posseparty.com/2024/Feed"><channel><title>t</title>
        <item><guid>a</guid><description>x</description></item>
        <item><guid>b</guid><description>y</description><posse:post>{"truncate": false}</posse:post></item>
      </channel></rss>`,
    });
    assert.equal(rss.entries[0]?.choices, undefined);
    assert.equal(rss.entries[1]?.choices?.truncate, false);
  });

  it("an element in another namespace with the same name is not POSSE Party's", () => {
    const feed = parseFeed({
      url: "https://example.com/atom.xml",
      body: `<feed xmlns="http://www.w3.org/2005/Atom" xmlns:posse="https://posseparty.com/2024/Feed" xmlns:other="https://other.example/ns">
        <title>t</title><id>urn:f</id><updated>2025-09-01T00:00:00Z</updated>
        <entry><id>urn:1</id><title>One</title><updated>2025-09-01T00:00:00Z</updated><other:post>{"syndicate": false}</other:post></entry>
      </feed>`,
    });
    assert.equal(feed.entries[0]?.choices, undefined);
  });

  it("ignores a wrong field with a reason and keeps the valid ones", () => {
    const feed = atom(`<posse:post>{"truncate": "yes", "append_url": true, "format_string": "",
      "platform_overrides": {"mastodon": {"syndicate": "no", "truncate": false}, "x": 3}}</posse:post>`);
    const [one] = feed.entries;
    assert.deepEqual(one?.choices, {
      appendUrl: true,
      perTarget: { mastodon: { truncate: false } },
      sources: ["posse:post"],
    });
    assert.deepEqual(one?.problems, [
      '<posse:post> "format_string" is "", not a non-empty text of at most 5000 characters; ignored.',
      '<posse:post> "truncate" is "yes", not true or false; ignored.',
      '<posse:post> platform_overrides.mastodon "syndicate" is "no", not true or false; ignored.',
      "<posse:post> platform_overrides.x is 3, not an object; ignored.",
    ]);
    assert.deepEqual(
      feed.problems.map((problem) => [problem.kind, problem.entry]),
      one?.problems.map(() => ["entry", "id:urn:1"]),
    );
  });

  it("ignores an element that is not JSON, or not in JSON, and still reads the entry", () => {
    const broken = atom(`<posse:post format="json">{"truncate": true,</posse:post>`);
    assert.equal(broken.entries[0]?.choices, undefined);
    assert.equal(broken.entries[0]?.title, "One");
    assert.match(broken.entries[0]?.problems[0] ?? "", /^<posse:post> is not valid JSON \(.+\); ignored\.$/);
    const yaml = atom(`<posse:post format="yaml">truncate: true</posse:post>`);
    assert.deepEqual(yaml.entries[0]?.problems, [
      '<posse:post format="yaml"> is ignored: only format="json" is read.',
    ]);
    const array = atom(`<posse:post>[1, 2]</posse:post>`);
    assert.deepEqual(array.entries[0]?.problems, ["<posse:post> is [1,2], not an object; ignored."]);
  });

  it("skips the choices of an entry whose JSON nests 5,000 deep, and reads the rest of the feed", () => {
    // Deep enough that walking it by recursion (JSON.stringify, zod) overflows the stack: before the
    // depth was bounded, that error made the whole feed unreadable.
    const deep = (inner: string) => `${'{"a":'.repeat(5000)}${inner}${"}".repeat(5000)}`;
    const feed = atom(`<posse:post format="json">{"truncate": ${deep("true")}}</posse:post>`);
    const [one, two] = feed.entries;
    assert.equal(one?.title, "One", "the entry itself is read");
    assert.equal(one?.choices, undefined, "its choices are skipped");
    assert.deepEqual(one?.problems, [
      "<posse:post> nests more than 32 levels deep, which no choice needs; ignored.",
    ]);
    assert.equal(two?.title, "Two", "and so is the rest of the feed");
    assert.deepEqual(
      feed.problems.map((problem) => problem.entry),
      ["id:urn:1"],
    );
    const [json, second] = parseFeed({
      url: "https://example.com/feed.json",
      body: `{"version": "https://jsonfeed.org/version/1.1", "items": [
        {"id": "1", "content_text": "Text", "_posse": {"syndicate": false, "x": ${deep("1")}}},
        {"id": "2", "content_text": "More", "_posse": {"syndicate": false}}]}`,
    }).entries;
    assert.equal(json?.choices, undefined);
    assert.match(json?.problems[0] ?? "", /^_posse nests more than 32 levels deep/);
    assert.equal(second?.choices?.syndicate, false);
    // As deep as the bound allows is still read: POSSE Party's own object is three deep.
    const [within] = jsonFeed({
      syndicate: false,
      x: JSON.parse(`${"[".repeat(31)}${"]".repeat(31)}`),
    }).entries;
    assert.equal(within?.choices?.syndicate, false);
  });

  it("reads a JSON Feed _posse object the same way", () => {
    const [entry] = jsonFeed({ syndicate: true, platform_overrides: { bsky: { append_url: true } } }).entries;
    assert.deepEqual(entry?.choices, {
      syndicate: true,
      perTarget: { bsky: { appendUrl: true } },
      sources: ["_posse"],
    });
    const [wrong] = jsonFeed("post it everywhere").entries;
    assert.equal(wrong?.choices, undefined);
    assert.deepEqual(wrong?.problems, ['_posse is "post it everywhere", not an object; ignored.']);
  });

  it("reads an h-entry's mp-syndicate-to as the targets chosen", () => {
    const feed = parseFeed({
      url: "https://example.com/",
      body: `<html><body><div class="h-feed">
        <div class="h-entry"><p class="e-content">Hello</p>
          <a class="u-mp-syndicate-to" href="https://mastodon.example/@jo"></a>
          <data class="p-mp-syndicate-to" value="https://bsky.app/profile/jo.example"></data>
          <data class="p-mp-syndicate-to" value="https://mastodon.example/@jo"></data></div>
        <div class="h-entry"><p class="e-content">Not syndicated by choice</p></div>
      </div></body></html>`,
    });
    assert.deepEqual(feed.entries[0]?.choices, {
      targets: ["https://mastodon.example/@jo", "https://bsky.app/profile/jo.example"],
      perTarget: {},
      sources: ["mp-syndicate-to"],
    });
    assert.equal(feed.entries[1]?.choices, undefined);
  });

  it("gives each <posse:post> to its own entry, by id, when the reader skipped an entry before it", () => {
    // feedsmith leaves out an entry with nothing it reads (the first and the last here): positions
    // shift, and the id says which entry a choice belongs to. A choice on another entry would send
    // (or hold back) the wrong post; one on an entry no longer there must not make the feed unreadable.
    const feed = parseFeed({
      url: "https://example.com/atom.xml",
      body: `<feed xmlns="http://www.w3.org/2005/Atom" xmlns:posse="https://posseparty.com/2024/Feed">
        <title>t</title><id>urn:f</id><updated>2025-09-01T00:00:00Z</updated>
        <entry><id>urn:0</id><title>Zero</title><updated>2025-09-01T00:00:00Z</updated><content>Text zero</content></entry>
        <entry></entry>
        <entry><id>urn:1</id><title>One</title><updated>2025-09-01T00:00:00Z</updated><content>Text one</content>
          <posse:post format="json">{"syndicate": ["https://mastodon.example/@jo"]}</posse:post></entry>
        <entry><id>urn:2</id><title>Two</title><updated>2025-09-01T00:00:00Z</updated><content>Text two</content></entry>
        <entry><posse:post format="json">{"syndicate": []}</posse:post></entry>
      </feed>`,
    });
    assert.deepEqual(
      feed.entries.map((entry) => [entry.key, entry.choices?.sources]),
      [
        ["id:urn:0", undefined],
        ["id:urn:1", ["posse:post"]],
        ["id:urn:2", undefined],
      ],
    );
  });

  it("gives each <posse:post> of an RSS feed without guids to the item it is in", () => {
    const feed = parseFeed({
      url: "https://example.com/rss.xml",
      body: `<rss version="2.0" xmlns:posse="https://posseparty.com/2024/Feed"><channel><title>t</title>
        <item><link>https://example.com/a</link><description>A</description></item>
        <item><link>https://example.com/b</link><description>B</description>
          <posse:post format="json">{"syndicate": false}</posse:post></item>
      </channel></rss>`,
    });
    assert.deepEqual(
      feed.entries.map((entry) => [entry.key, entry.choices?.syndicate]),
      [
        ["url:https://example.com/a", undefined],
        ["url:https://example.com/b", false],
      ],
    );
  });
});
