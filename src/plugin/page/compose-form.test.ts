// The compose page's form turned into Micropub: only what changed is sent, an emptied title or
// categories are deleted (not replaced with nothing), and targets are only ever added. The edit form's
// photo rows (decision 0060): a file belongs to the row before it; photos are replaced as a whole.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Post } from "../../contract/posts.ts";
import {
  ComposeRefusal,
  composeFormOfPost,
  editPhotosOfFields,
  micropubFieldsOf,
  micropubUpdateOf,
  photosAfterEdit,
  postPhotos,
  readComposeForm,
} from "./compose-form.ts";

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
    assert.equal(micropubUpdateOf(article, composeFormOfPost(article), postPhotos(article)), null);
  });

  it("replaces what changed and deletes what was emptied", () => {
    const form = {
      ...composeFormOfPost(article),
      kind: "note" as const,
      content: "Eight cats",
      categories: " ",
    };
    assert.deepEqual(micropubUpdateOf(article, form, postPhotos(article)), {
      action: "update",
      url: article.url,
      replace: { content: ["Eight cats"] },
      delete: ["name", "category"],
    });
  });

  it("changes the photo's alt text in place and only adds targets", () => {
    const form = {
      ...composeFormOfPost(article),
      targets: ["https://bsky.example/me"],
      photos: [{ url: "https://example.org/media/a.jpg", upload: null, alt: "A grey cat", remove: false }],
    };
    assert.deepEqual(micropubUpdateOf(article, form, photosAfterEdit(article, form.photos)), {
      action: "update",
      url: article.url,
      replace: {
        photo: [{ value: "https://example.org/media/a.jpg", alt: "A grey cat" }],
        "mp-syndicate-to": ["https://social.example/@me", "https://bsky.example/me"],
      },
    });
  });

  it("reads each photo row of a multipart edit, its file by the slot before it", () => {
    const rows = editPhotosOfFields([
      ["photo-slot", "https://example.org/media/a.jpg"],
      ["photo", "https://example.org/media/new-a.jpg"],
      ["photo-alt", " A new cat "],
      ["photo-slot", "https://example.org/media/b.jpg"],
      ["photo-alt", "B"],
      ["photo-remove", "https://example.org/media/b.jpg"],
      ["photo-slot", "new"],
      ["photo", "https://example.org/media/c.jpg"],
      ["photo-alt", "C"],
    ]);
    assert.deepEqual(rows, [
      {
        url: "https://example.org/media/a.jpg",
        upload: "https://example.org/media/new-a.jpg",
        alt: "A new cat",
        remove: false,
      },
      { url: "https://example.org/media/b.jpg", upload: null, alt: "B", remove: true },
      { url: null, upload: "https://example.org/media/c.jpg", alt: "C", remove: false },
    ]);
  });

  it("replaces, removes and adds photos as a whole, keeping one the form did not name", () => {
    const two = post({
      content: "Cats",
      photo: [
        { url: "https://example.org/media/a.jpg", alt: "A" },
        "https://example.org/media/b.jpg",
        { url: "https://example.org/media/z.jpg", alt: "Z" },
      ],
    });
    const photos = photosAfterEdit(two, [
      {
        url: "https://example.org/media/a.jpg",
        upload: "https://example.org/media/a2.jpg",
        alt: "A2",
        remove: false,
      },
      { url: "https://example.org/media/b.jpg", upload: null, alt: "", remove: true },
      { url: null, upload: "https://example.org/media/c.jpg", alt: "", remove: false },
    ]);
    assert.deepEqual(photos, [
      { url: "https://example.org/media/a2.jpg", alt: "A2" },
      { url: "https://example.org/media/c.jpg", alt: "" },
      { url: "https://example.org/media/z.jpg", alt: "Z" },
    ]);
    assert.deepEqual(micropubUpdateOf(two, composeFormOfPost(two), photos), {
      action: "update",
      url: two.url,
      replace: {
        photo: [
          { value: "https://example.org/media/a2.jpg", alt: "A2" },
          "https://example.org/media/c.jpg",
          { value: "https://example.org/media/z.jpg", alt: "Z" },
        ],
      },
    });
    assert.deepEqual(micropubUpdateOf(two, composeFormOfPost(two), []), {
      action: "update",
      url: two.url,
      delete: ["photo"],
    });
  });

  it("refuses alt text without a photo in the new row, and a row naming a photo the post lacks", () => {
    const refusal = (key: string) => (error: unknown) => error instanceof ComposeRefusal && error.key === key;
    assert.throws(
      () => photosAfterEdit(article, [{ url: null, upload: null, alt: "A cat", remove: false }]),
      refusal("altWithoutPhoto"),
    );
    assert.throws(
      () =>
        photosAfterEdit(article, [
          { url: "https://elsewhere.example/x.jpg", upload: null, alt: "", remove: true },
        ]),
      refusal("photoNotOfPost"),
    );
    assert.throws(
      () =>
        photosAfterEdit(article, [
          { url: "https://example.org/media/a.jpg", upload: null, alt: "x".repeat(1_501), remove: false },
        ]),
      refusal("altTooLong"),
    );
  });

  it("reads the rows of a form-encoded preview: slots and alt texts pair up", () => {
    const form = readComposeForm({
      content: "Cats",
      "photo-slot": ["https://example.org/media/a.jpg", "new"],
      "photo-alt": ["A", ""],
      "photo-remove": "https://example.org/media/a.jpg",
    });
    assert.deepEqual(form.photos, [
      { url: "https://example.org/media/a.jpg", upload: null, alt: "A", remove: true },
      { url: null, upload: null, alt: "", remove: false },
    ]);
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
