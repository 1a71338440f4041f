// The compose page's form turned into Micropub: only what changed is sent, an emptied title or
// categories are deleted (not replaced with nothing), and targets are only ever added.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Post } from "../../contract/posts.ts";
import { composeFormOfPost, micropubFieldsOf, micropubUpdateOf, readComposeForm } from "./compose-form.ts";

const post = (properties: Record<string, unknown>): Post => ({
  id: "7",
  url: "https://example.org/articles/cats/",
  properties: { type: "entry", url: "https://example.org/articles/cats/", ...properties },
  status: "published",
  published: new Date(0),
  created: new Date(0),
  updated: new Date(0),
  deleted: false,
});

describe("the compose form as Micropub", () => {
  const article = post({
    name: "Cats",
    content: { text: "Seven cats", html: "<p>Seven cats</p>" },
    category: ["cats", "sofas"],
    photo: [{ url: "https://example.org/media/a.jpg", alt: "A cat" }],
    "mp-syndicate-to": ["https://social.example/@me"],
  });

  it("sends nothing when nothing changed", () => {
    assert.equal(micropubUpdateOf(article, composeFormOfPost(article)), null);
  });

  it("replaces what changed and deletes what was emptied", () => {
    const form = {
      ...composeFormOfPost(article),
      kind: "note" as const,
      content: "Eight cats",
      categories: " ",
    };
    assert.deepEqual(micropubUpdateOf(article, form), {
      action: "update",
      url: article.url,
      replace: { content: ["Eight cats"] },
      delete: ["name", "category"],
    });
  });

  it("changes the photo's alt text in place and only adds targets", () => {
    const form = { ...composeFormOfPost(article), alt: "A grey cat", targets: ["https://bsky.example/me"] };
    assert.deepEqual(micropubUpdateOf(article, form), {
      action: "update",
      url: article.url,
      replace: {
        photo: [{ value: "https://example.org/media/a.jpg", alt: "A grey cat" }],
        "mp-syndicate-to": ["https://social.example/@me", "https://bsky.example/me"],
      },
    });
  });

  it("makes the fields of a new post: a note has no title, categories split and once each", () => {
    const form = readComposeForm({
      kind: "note",
      name: "Ignored",
      content: "Hello",
      category: "a, b ,a,,",
      "mp-photo-alt": "",
      "mp-syndicate-to": "https://social.example/@me",
    });
    assert.deepEqual(micropubFieldsOf(form, []), [
      ["h", "entry"],
      ["content", "Hello"],
      ["category[]", "a"],
      ["category[]", "b"],
      ["mp-syndicate-to[]", "https://social.example/@me"],
    ]);
  });
});
