import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jf2ToMf2Item, mf2PropertiesToJf2 } from "./mf2-jf2.ts";

describe("mf2 JSON to stored JF2 and back", () => {
  it("keeps single values plain and the always-array properties as arrays", () => {
    const jf2 = mf2PropertiesToJf2({
      content: ["hello"],
      category: ["one"],
      "mp-syndicate-to": ["https://social.example/@me"],
      name: ["a", "b"],
    });
    assert.deepEqual(jf2, {
      content: "hello",
      category: ["one"],
      "mp-syndicate-to": ["https://social.example/@me"],
      name: ["a", "b"],
    });
  });

  it("turns HTML content into {html, text} and back into mf2's {html, value}", () => {
    const jf2 = mf2PropertiesToJf2({ content: [{ html: "<p>Hello <b>world</b> &amp; all</p><p>Two</p>" }] });
    assert.deepEqual(jf2.content, {
      html: "<p>Hello <b>world</b> &amp; all</p><p>Two</p>",
      text: "Hello world & all\n\nTwo",
    });
    assert.deepEqual(jf2ToMf2Item({ type: "entry", ...jf2 }).properties.content, [
      { html: "<p>Hello <b>world</b> &amp; all</p><p>Two</p>", value: "Hello world & all\n\nTwo" },
    ]);
  });

  it("stores photos as {url, alt} and answers them as a URL or {value, alt}", () => {
    const jf2 = mf2PropertiesToJf2({
      photo: ["https://example.org/a.jpg", { value: "https://example.org/b.jpg", alt: "A sunset" }],
    });
    assert.deepEqual(jf2.photo, [
      { url: "https://example.org/a.jpg" },
      { url: "https://example.org/b.jpg", alt: "A sunset" },
    ]);
    assert.deepEqual(jf2ToMf2Item({ type: "entry", ...jf2 }).properties.photo, [
      "https://example.org/a.jpg",
      { value: "https://example.org/b.jpg", alt: "A sunset" },
    ]);
  });

  it("converts nested microformats objects both ways", () => {
    const mf2 = {
      summary: ["Weighed 70.64 kg"],
      "x-weight": [{ type: ["h-measure"], properties: { num: ["70.64"], unit: ["kg"] } }],
    };
    const jf2 = mf2PropertiesToJf2(mf2);
    assert.deepEqual(jf2["x-weight"], { type: "measure", num: "70.64", unit: "kg" });
    assert.deepEqual(jf2ToMf2Item({ type: "entry", ...jf2 }), { type: ["h-entry"], properties: mf2 });
  });

  it("keeps a nested object's value", () => {
    const jf2 = mf2PropertiesToJf2({
      author: [{ type: ["h-card"], properties: { name: ["Ann"] }, value: "https://ann.example/" }],
    });
    assert.deepEqual(jf2.author, { type: "card", name: "Ann", value: "https://ann.example/" });
    assert.deepEqual(jf2ToMf2Item({ type: "entry", ...jf2 }).properties.author, [
      { type: ["h-card"], properties: { name: ["Ann"] }, value: "https://ann.example/" },
    ]);
  });
});
