// RSS 2.0 and RSS 1.0 items that give their title, text or dates only in Dublin Core (dc:title,
// dc:description, dc:date, dcterms:issued/created/modified, dcterms:abstract) are read from it, as
// library catalogues, Drupal and journal sites write them; an item's own elements still come first.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fixture } from "../../../../test/helpers/feed-fixtures.ts";
import { type FeedEntry, parseFeed } from "./index.ts";

const read = (name: string) =>
  parseFeed({ body: fixture("real-world", name), url: "https://library.example/feed" }).entries;

const shape = (entry: FeedEntry | undefined) => ({
  title: entry?.title,
  html: entry?.contentHtml,
  published: entry?.published?.toISOString(),
  updated: entry?.updated?.toISOString(),
});

describe("Dublin Core in place of an item's own elements", () => {
  it("RSS 2.0: dc:title, dc:description, dc:date and dcterms fill title, text and dates", () => {
    const [first, second, third, fourth] = read("rss2-dublin-core.xml");
    assert.deepEqual(shape(first), {
      title: "Opening hours over the holidays",
      html: "<p>We close at <b>noon</b> on the 24th.</p>",
      published: "2025-12-01T08:30:00.000Z",
      updated: undefined,
    });
    assert.equal(first?.contentText, "We close at noon on the 24th.");
    assert.equal(first?.properties.name, "Opening hours over the holidays");
    assert.deepEqual(shape(second), {
      title: "New maps",
      html: "Two hundred maps of the county, scanned.",
      published: "2025-11-20T00:00:00.000Z",
      updated: "2025-11-22T10:00:00.000Z",
    });
    assert.deepEqual(shape(third), {
      title: "Reading group",
      html: "Thursdays at six.",
      published: "2025-11-04T18:00:00.000Z",
      updated: undefined,
    });
    assert.deepEqual(shape(fourth), {
      title: "Core elements win",
      html: "The item's own description.",
      published: "2025-11-03T08:00:00.000Z",
      updated: undefined,
    });
  });

  it("RSS 1.0: dc:title, dc:description and dcterms:issued/created/modified", () => {
    const [tides, winds] = read("rss1-dublin-core.rdf");
    assert.deepEqual(shape(tides), {
      title: "On tides",
      html: "Why the sea comes back.",
      published: "2024-06-01T12:00:00.000Z",
      updated: "2024-06-03T12:00:00.000Z",
    });
    assert.deepEqual(shape(winds), {
      title: "On winds",
      html: "<p>Where the air goes.</p>",
      published: "2024-05-01T00:00:00.000Z",
      updated: undefined,
    });
    assert.equal(winds?.properties.published, "2024-05-01T00:00:00.000Z");
  });
});
