import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { visibilityOf } from "./visibility.ts";

describe("a post's visibility", () => {
  it("is public without the property, or when every value says public", () => {
    assert.equal(visibilityOf({}), "public");
    assert.equal(visibilityOf({ visibility: "public" }), "public");
    assert.equal(visibilityOf({ visibility: ["public"] }), "public");
    assert.equal(visibilityOf({ visibility: [] }), "public");
  });

  it("is unlisted or private as written, a string or an mf2 array", () => {
    assert.equal(visibilityOf({ visibility: "unlisted" }), "unlisted");
    assert.equal(visibilityOf({ visibility: ["unlisted"] }), "unlisted");
    assert.equal(visibilityOf({ visibility: "private" }), "private");
    assert.equal(visibilityOf({ visibility: ["private"] }), "private");
  });

  it("is private for any value it does not know, and the most hidden of several", () => {
    for (const value of ["Private", "protected", "", 1, { value: "public" }, ["public", "private"]])
      assert.equal(visibilityOf({ visibility: value }), "private", JSON.stringify(value));
    assert.equal(visibilityOf({ visibility: ["public", "unlisted"] }), "unlisted");
  });
});
