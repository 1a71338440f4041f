// An author field gives the author's name, never an e-mail address: the name reaches public copies
// through {{author_name}}, the address is the author's private contact. RSS 2.0's "address (Name)",
// the reverse, mail's "Name <address>", the same in dc:creator, and an Atom name that is an
// address; a bare address gives no name. JSON Feed items without an author have the feed's, as
// the specification says (1.1 `authors`, 1.0 `author`).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fixture } from "../../../../test/helpers/feed-fixtures.ts";
import { parseFeed } from "./index.ts";

const read = (name: string) =>
  parseFeed({ body: fixture("real-world", name), url: "https://authors.example/feed" });

describe("authors", () => {
  it("RSS <author> and dc:creator in every form give the name alone", () => {
    const feed = read("rss-authors.xml");
    const authors = Object.fromEntries(feed.entries.map((entry) => [entry.id, entry.author]));
    assert.deepEqual(authors, {
      "rss-spec": { name: "Jo Doe" },
      reversed: { name: "Jo Doe" },
      mail: { name: "Jo Doe" },
      bare: undefined,
      "creator-reversed": { name: "Jo Doe" },
      "creator-spec": { name: "Jo Doe" },
      "creator-bare": undefined,
      "creator-name": { name: "Jo Doe" },
    });
    const everything = JSON.stringify(feed.entries.map((entry) => [entry.properties, entry.author]));
    assert.ok(!everything.includes("@authors.example"), everything);
  });

  it("an Atom name that is an address is no name; its link stays", () => {
    const [fromFeed, own] = read("atom-author-address.xml").entries;
    assert.deepEqual(fromFeed?.author, { url: "https://authors.example/jo" });
    assert.deepEqual(fromFeed?.properties.author, { type: "card", url: "https://authors.example/jo" });
    assert.deepEqual(own?.author, { name: "Jo Doe" });
  });

  for (const [version, name] of [
    ["1.1 authors", "json-feed-1.1-feed-authors.json"],
    ["1.0 author", "json-feed-1.0-feed-author.json"],
  ] as const) {
    it(`a JSON Feed item without an author has the feed's (${version})`, () => {
      const [inherits, own] = read(name).entries;
      assert.deepEqual(inherits?.author, { name: "Jo Doe", url: "https://authors.example/jo" });
      assert.deepEqual(own?.author, { name: "Sam Roe" });
    });
  }
});
