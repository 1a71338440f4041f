// How a copy's text is made for one target: the user's own words, else the site's choice kept with
// a post from a feed, else the template. The site's choice is read only for a post from elsewhere.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Post } from "../../contract/posts.ts";
import { SITE_TEXT_PROPERTY } from "../../contract/syndicator.ts";
import { siteTexts, wordsFor } from "./own-texts.ts";

const UID = "https://mastodon.example/@me";
const at = new Date(Date.UTC(2026, 2, 1));
const post = (extra: Partial<Post> = {}): Post => ({
  id: "1",
  url: "https://blog.example/hello/",
  properties: {
    name: "Hello",
    [SITE_TEXT_PROPERTY]: [{ [UID]: { text: "New: Hello", truncate: false, appendUrl: true } }],
  },
  status: "published",
  published: at,
  created: at,
  updated: at,
  deleted: false,
  origin: "feed:https://blog.example/feed.xml",
  ...extra,
});

describe("the words of a copy", () => {
  it("are the user's own words first, then the site's choice, then none (the template)", () => {
    const own = new Map([[UID, { text: "My words" }]]);
    assert.deepEqual(wordsFor(post(), own, UID, undefined), { text: "My words" });
    assert.deepEqual(wordsFor(post(), undefined, UID, undefined), {
      site: { text: "New: Hello", truncate: false, appendUrl: true },
    });
    assert.deepEqual(wordsFor(post(), undefined, "https://other.example/", undefined), {});
  });

  it("carry the user's thread choice for that target, on or off, beside whichever words apply", () => {
    const choices = new Map([
      [UID, false],
      ["https://other.example/", true],
    ]);
    const own = new Map([[UID, { text: "My words" }]]);
    assert.deepEqual(wordsFor(post(), own, UID, choices), { text: "My words", thread: false });
    assert.deepEqual(wordsFor(post(), undefined, UID, choices), {
      site: { text: "New: Hello", truncate: false, appendUrl: true },
      thread: false,
    });
    assert.deepEqual(wordsFor(post(), undefined, "https://other.example/", choices), { thread: true });
    assert.deepEqual(wordsFor(post(), undefined, "https://third.example/", choices), {});
  });

  it("take the site's choice only from a post from elsewhere, and only a well-formed one", () => {
    assert.equal(siteTexts(post({ origin: undefined })).size, 0, "never from the site's own post");
    const odd = post({
      properties: { [SITE_TEXT_PROPERTY]: [{ [UID]: { truncate: "no" }, other: { appendUrl: false } }] },
    });
    assert.deepEqual([...siteTexts(odd)], [["other", { appendUrl: false }]]);
  });
});
