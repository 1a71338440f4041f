// A copy follows an edit of its post only when its digest changes (decision 0028): the digest must
// change with everything the target receives, stay the same for what it does not, and stay the
// digest stored by earlier versions, or every copy would be edited again after an upgrade.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { CopyPreview, PostProperties, PreviewOptions, Publication } from "../../contract/syndicator.ts";
import { copyDigest, digestFor, previewFor } from "./copy-digest.ts";

const BASE = { over: false, cut: false, permalink: "text", ownText: false } as const;
const CAT = { url: "https://example.org/a.jpg", alt: "A cat" };
const PLAIN = { url: "https://example.org/b.jpg" };
const NOTE: CopyPreview = {
  ...BASE,
  text: "Hello https://example.org/notes/1/",
  photos: [CAT, PLAIN],
};
const LIKE: CopyPreview = {
  ...BASE,
  photos: [],
  action: { kind: "like", url: "https://social.example/@a/1" },
};

describe("copyDigest", () => {
  it("is the digest earlier versions stored for the same copy", () => {
    assert.equal(copyDigest(NOTE), "z_3X6BB0oloS_rZTtPl8a5Eq4xuxcvV3NbwObCSBSWI");
    assert.equal(copyDigest(LIKE), "-CvRhX6e-Sz0W3MUN7eAXOuCIJQs8K4VjLu4yFY4jKE");
  });

  it("changes with the text, a photo, its alt text, the link card, the action and the thread", () => {
    const card = { uri: "https://example.org/notes/1/", title: "Note", description: "A note" };
    const variants: CopyPreview[] = [
      NOTE,
      { ...NOTE, text: "Hello" },
      { ...NOTE, text: undefined },
      { ...NOTE, photos: NOTE.photos.slice(0, 1) },
      { ...NOTE, photos: [{ url: "https://example.org/c.jpg", alt: "A cat" }, PLAIN] },
      { ...NOTE, photos: [{ url: "https://example.org/a.jpg", alt: "A dog" }, PLAIN] },
      { ...NOTE, linkCard: card },
      { ...NOTE, linkCard: { ...card, title: "Another" } },
      { ...NOTE, action: { kind: "reply", url: "https://social.example/@a/1" } },
      { ...NOTE, action: { kind: "reply", url: "https://social.example/@a/2" } },
      { ...NOTE, thread: [{ text: "Hello", count: 5 }] },
      { ...NOTE, thread: [{ text: "Hallo", count: 5 }] },
      {
        ...NOTE,
        thread: [
          { text: "Hello", count: 5 },
          { text: "again", count: 5 },
        ],
      },
    ];
    assert.equal(new Set(variants.map(copyDigest)).size, variants.length);
  });

  it("is the same for what the target does not receive: counts, cuts and where the link went", () => {
    assert.equal(
      copyDigest({
        ...NOTE,
        over: true,
        cut: true,
        permalink: "card",
        ownText: true,
        length: { count: 9, unit: "graphemes" },
      }),
      copyDigest(NOTE),
    );
    assert.equal(
      copyDigest({ ...NOTE, thread: [{ text: "Hello", count: 5 }] }),
      copyDigest({ ...NOTE, thread: [{ text: "Hello", count: 500 }] }),
    );
  });

  it("reads a photo without alt text as one with an empty alt text", () => {
    const withEmpty = { ...NOTE, photos: [CAT, { url: "https://example.org/b.jpg", alt: "" }] };
    assert.equal(copyDigest(withEmpty), copyDigest(NOTE));
  });
});

describe("previewFor and digestFor", () => {
  const publication: Publication = {
    me: "https://example.org/",
    postUrlPattern: "{me}notes/{slug}/",
    timezone: "UTC",
    name: "Example",
  };
  const properties: PostProperties = { content: "Hello" };
  const words: PreviewOptions = { text: "My own words" };

  function syndicator(preview?: SyndicatorPlugin["preview"]): SyndicatorPlugin {
    return {
      id: "test",
      name: "Test",
      meta: {},
      init() {},
      info: { uid: "https://social.example/@me", name: "Social" },
      async syndicate() {
        return "https://social.example/@me/1";
      },
      ...(preview ? { preview } : {}),
    };
  }

  it("asks the syndicator's preview with the post, the site and the words, and digests it", () => {
    const asked: unknown[] = [];
    const previewing = syndicator((...args) => {
      asked.push(args);
      return NOTE;
    });
    assert.equal(previewFor(previewing, properties, publication, words), NOTE);
    assert.equal(digestFor(previewing, properties, publication, words), copyDigest(NOTE));
    assert.deepEqual(asked, [
      [properties, publication, words],
      [properties, publication, words],
    ]);
  });

  it("is null for a syndicator that cannot preview, or that previews nothing", () => {
    assert.equal(previewFor(syndicator(), properties, publication, words), null);
    assert.equal(digestFor(syndicator(), properties, publication, words), null);
    const nothing = syndicator(() => undefined as unknown as CopyPreview);
    assert.equal(previewFor(nothing, properties, publication, words), null);
    assert.equal(digestFor(nothing, properties, publication, words), null);
  });
});
