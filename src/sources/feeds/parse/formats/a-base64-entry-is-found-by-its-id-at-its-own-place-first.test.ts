// Which entry's base64 constructs an Atom 0.3 entry takes (atom-base64.ts, entryBase64): the one
// with its id, at its own place first when two entries share the id, and none lost when feedsmith
// read more entries than the constructs hold (CI's generated mutants atom-base64.ts:95, decision 0079).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Base64Constructs, entryBase64 } from "./atom-base64.ts";

const entry = (id: string | undefined, content: boolean) => ({
  ...(id ? { id } : {}),
  title: false,
  summary: false,
  content,
});

describe("an entry's base64 constructs", () => {
  it("two entries sharing an id: each takes the constructs at its own place", () => {
    const constructs: Base64Constructs = {
      feedTitle: false,
      entries: [entry("tag:a", true), entry("tag:a", false)],
    };
    assert.equal(entryBase64(constructs, 0, "tag:a")?.content, true);
    assert.equal(entryBase64(constructs, 1, "tag:a")?.content, false);
  });

  it("an entry past the constructs' end is found by its id, and one without an id by its place", () => {
    const constructs: Base64Constructs = {
      feedTitle: false,
      entries: [entry("tag:b", true), entry(undefined, false)],
    };
    assert.equal(entryBase64(constructs, 5, "tag:b")?.content, true);
    assert.equal(entryBase64(constructs, 5, "tag:none"), undefined);
    assert.equal(entryBase64(constructs, 1, undefined)?.content, false);
  });
});
