// normaliseEntry on drafts written by hand, for what the format tests reach only by accident: the
// hash that tells an edit (each part of a post that copies hold changes it; what copies do not hold
// does not), the properties a post gets (uid, url, updated, categories, audio and video by type),
// a note's generated title dropped and a real one kept. A slip here edits every copy at each poll,
// or never edits them, or sends a note with its beginning twice.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EntryDraft } from "./entry-draft.ts";
import { normaliseEntry } from "./normalise-entry.ts";

const BASE = "https://example.com/blog/";

const draft = (fields: Partial<EntryDraft> = {}): EntryDraft => ({
  base: BASE,
  id: "urn:1",
  url: "posts/1",
  content: { value: "<p>Hello <b>world</b></p>", html: true },
  published: "2025-09-01T12:00:00Z",
  enclosures: [],
  photos: [],
  categories: [],
  choices: [],
  ...fields,
});

const hashOf = (fields: Partial<EntryDraft> = {}) => normaliseEntry(draft(fields)).contentHash;

describe("a feed entry's hash changes with what copies hold, and only with that", () => {
  it("changes with the title, the content, the summary, the URL, a category, a photo, audio or video", () => {
    const base = hashOf();
    const changed = {
      title: hashOf({ title: { value: "A title", html: false } }),
      content: hashOf({ content: { value: "<p>Hello <b>there</b></p>", html: true } }),
      summary: hashOf({ summary: { value: "In short", html: false } }),
      url: hashOf({ url: "posts/2" }),
      category: hashOf({ categories: ["walks"] }),
      photo: hashOf({ photos: [{ url: "a.png" }] }),
      audio: hashOf({ enclosures: [{ url: "a.mp3", type: "audio/mpeg" }] }),
      video: hashOf({ enclosures: [{ url: "a.mp4", type: "video/mp4" }] }),
    };
    for (const [what, hash] of Object.entries(changed)) assert.notEqual(hash, base, what);
    assert.equal(
      new Set(Object.values(changed)).size,
      Object.keys(changed).length,
      "each differs from the others",
    );
  });

  it("does not change with a date, the id, or choices that shape no text", () => {
    const base = hashOf();
    assert.equal(hashOf({ published: "2025-09-02T12:00:00Z" }), base);
    assert.equal(hashOf({ id: "urn:other" }), base);
    // A per-platform choice naming no text field: the copies' text is the same.
    const noText = {
      source: "_posse" as const,
      value: { platform_overrides: { mastodon: { syndicate: true } } },
    };
    assert.equal(hashOf({ choices: [noText] }), base);
  });

  it("changes with a choice that shapes a copy's text, whatever the order of the platforms", () => {
    const base = hashOf();
    const truncate = (platforms: Record<string, unknown>) =>
      hashOf({ choices: [{ source: "_posse", value: { platform_overrides: platforms } }] });
    const one = truncate({ mastodon: { truncate: false }, bluesky: { append_url: true } });
    const other = truncate({ bluesky: { append_url: true }, mastodon: { truncate: false } });
    assert.notEqual(one, base);
    assert.equal(one, other, "the same choices in another order");
    assert.notEqual(truncate({ mastodon: { truncate: false } }), one);
  });
});

describe("a feed entry's properties", () => {
  it("names its uid and absolute url, an edit's date, its categories once each, audio and video by type", () => {
    const entry = normaliseEntry(
      draft({
        updated: "2025-09-03T08:00:00Z",
        categories: ["  long   walks ", "long walks", "", "rivers"],
        enclosures: [
          { url: "a.mp3", type: "audio/mpeg" },
          { url: "a.mp3", type: "audio/mpeg" },
          { url: "b.mp4", type: "video/mp4" },
          { url: "c.pdf", type: "application/pdf" },
          { url: "d.ogg" },
        ],
      }),
    );
    const { properties } = entry;
    assert.equal(properties.uid, "urn:1");
    assert.equal(properties.url, "https://example.com/blog/posts/1");
    assert.equal(properties.published, "2025-09-01T12:00:00.000Z");
    assert.equal(properties.updated, "2025-09-03T08:00:00.000Z");
    assert.deepEqual(properties.category, ["long walks", "rivers"]);
    assert.deepEqual(properties.audio, ["https://example.com/blog/a.mp3"]);
    assert.deepEqual(properties.video, ["https://example.com/blog/b.mp4"]);
    assert.equal(entry.enclosures.length, 4, "the same file named twice is one enclosure");
    // The first naming of a file is kept, as the site wrote it first.
    const twice = normaliseEntry(
      draft({ enclosures: [{ url: "e.mp3", type: "audio/mpeg" }, { url: "e.mp3" }] }),
    );
    assert.deepEqual(twice.enclosures, [{ url: "https://example.com/blog/e.mp3", type: "audio/mpeg" }]);
    // A post with none of them names none (not an empty list).
    const plain = normaliseEntry(draft()).properties;
    for (const name of ["category", "audio", "video", "photo", "updated", "name", "summary"])
      assert.equal(name in plain, false, name);
  });

  it("an `updated` equal to `published` is no edit; an entry with neither has no date", () => {
    const same = normaliseEntry(draft({ updated: "2025-09-01T12:00:00Z" }));
    assert.equal(same.updated, undefined);
    assert.equal(same.properties.updated, undefined);
    const none = normaliseEntry(draft({ published: undefined }));
    assert.equal(none.properties.published, undefined);
    assert.equal(none.unreadableDate, undefined);
    const unreadable = normaliseEntry(draft({ published: " last Tuesday " }));
    assert.equal(unreadable.unreadableDate, "last Tuesday");
    assert.equal(unreadable.properties.published, undefined);
  });

  it("plain-text content: trimmed, made HTML, its text as written; blank content is none", () => {
    const entry = normaliseEntry(draft({ content: { value: "  Plain words  ", html: false } }));
    assert.equal(entry.contentText, "Plain words");
    assert.match(entry.contentHtml ?? "", /Plain words/);
    assert.equal((entry.properties.content as { text: string }).text, "Plain words");
    const blank = normaliseEntry(draft({ content: { value: "   ", html: false } }));
    assert.equal(blank.contentHtml, undefined);
    assert.equal("content" in blank.properties, false);
  });

  it("an entry with nothing to name it by is keyed by its hash; content of no text gives an empty text", () => {
    const entry = normaliseEntry(
      draft({ id: " ", url: undefined, content: { value: "<p> </p><img src=x.png>", html: true } }),
    );
    assert.equal(entry.key, `hash:${entry.contentHash}`);
    for (const name of ["url", "uid"]) assert.equal(name in entry.properties, false, name);
    assert.equal("unreadableDate" in entry, false);
    assert.equal(entry.id, undefined);
    assert.equal((entry.properties.content as { text: string } | undefined)?.text ?? "", "");
    assert.equal(entry.contentText, undefined);
  });
});

describe("a note's generated title", () => {
  const title = (value: string, content: string) =>
    normaliseEntry(draft({ title: { value, html: false }, content: { value: content, html: true } })).title;

  it("is dropped when it is the whole text or its beginning cut with an ellipsis", () => {
    assert.equal(title("Hello world", "<p>Hello <b>world</b></p>"), undefined);
    assert.equal(title("Hello wor…", "<p>Hello <b>world</b></p>"), undefined);
    assert.equal(title("Hello wor...", "<p>Hello <b>world</b></p>"), undefined);
    assert.equal(title("Hello  wor …", "<p>Hello <b>world</b></p>"), undefined, "blanks before the ellipsis");
  });

  it("is kept when it is a name: not the text's beginning, or only the beginning without an ellipsis", () => {
    assert.equal(title("Hello", "<p>Hello <b>world</b></p>"), "Hello");
    assert.equal(title("Goodbye…", "<p>Hello <b>world</b></p>"), "Goodbye…");
    assert.equal(title("…", "<p>Hello</p>"), "…");
  });

  it("of a long article, its beginning cut with an ellipsis is dropped too", () => {
    const article = `<p>${"word ".repeat(2000)}</p>`;
    assert.equal(title("word word word…", article), undefined);
    assert.equal(title("A real title", article), "A real title");
  });
});
