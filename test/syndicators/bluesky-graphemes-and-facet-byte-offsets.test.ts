import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { detectFacets } from "../../src/syndicators/bluesky/bluesky-facets.ts";
import { blueskyPostText } from "../../src/syndicators/bluesky/bluesky-post-text.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { callOptions, note, publication } from "./fixtures.ts";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const graphemeCount = (text: string) => Array.from(segmenter.segment(text)).length;

/** The text a facet covers, read from the UTF-8 bytes as Bluesky reads it. */
function covered(text: string, facet: { index: { byteStart: number; byteEnd: number } }): string {
  return Buffer.from(text, "utf8").subarray(facet.index.byteStart, facet.index.byteEnd).toString("utf8");
}

describe("Bluesky: graphemes and facets", () => {
  let pds: FakePds;
  let syndicator: BlueskySyndicator;
  before(async () => {
    pds = await startFakePds({ handle: "alice.example.com", password: "pw" });
    syndicator = new BlueskySyndicator({ handle: "alice.example.com", password: "pw", serviceUrl: pds.url });
  });
  after(() => pds.close());

  it("places link facets by UTF-8 bytes, after emoji and accents", async () => {
    const text = "Café 👩🏽‍💻 ünïcode: https://example.com/ä?q=1 and 🎉 https://example.net/x.";
    await syndicator.syndicate(note({ content: text }), publication, callOptions());
    const value = pds.records.at(-1)?.value as { text: string; facets: Parameters<typeof covered>[1][] };
    assert.equal(value.text, text);
    assert.deepEqual(
      value.facets.map((facet) => covered(value.text, facet)),
      ["https://example.com/ä?q=1", "https://example.net/x"],
    );
    // The string index of the first link is not its byte offset: the emoji and accents are wider.
    assert.notEqual(value.facets[0]?.index.byteStart, text.indexOf("https://example.com"));
  });

  it("cuts to 300 graphemes, counting an emoji sequence as one, and links the rest", async () => {
    const text = "🏳️‍🌈 ".repeat(400);
    await syndicator.syndicate(note({ content: text }), publication, callOptions());
    const value = pds.records.at(-1)?.value as { text: string; facets: Parameters<typeof covered>[1][] };
    assert.ok(graphemeCount(value.text) <= 300, `${graphemeCount(value.text)} graphemes`);
    assert.ok(value.text.endsWith("…\n\nhttps://example.org/notes/hello/"));
    assert.ok(!value.text.includes("\u200d…"), "no emoji sequence was cut in its middle");
    assert.equal(
      covered(value.text, value.facets[0] ?? { index: { byteStart: 0, byteEnd: 0 } }),
      "https://example.org/notes/hello/",
    );
  });

  it("keeps within 3000 bytes when the graphemes are wide", () => {
    const family = "👨‍👩‍👧‍👦"; // one grapheme, 25 bytes
    const text = blueskyPostText({
      text: { text: family.repeat(299), source: "content" },
      permalink: "https://example.org/p/",
      includePermalink: false,
      hasImages: false,
    });
    assert.ok(Buffer.byteLength(text) <= 3000, `${Buffer.byteLength(text)} bytes`);
    assert.ok(text.endsWith("…\n\nhttps://example.org/p/"));
  });

  it("finds no facet where there is no link", async () => {
    const facets = await detectFacets("No links here, just https:// and a dot.", async () => undefined);
    assert.deepEqual(facets, []);
  });
});
