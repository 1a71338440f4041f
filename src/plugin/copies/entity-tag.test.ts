import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { noneMatchHolds, strongEntityTag } from "./entity-tag.ts";

describe("the copies' entity tags", () => {
  it("are strong, quoted, and differ when one byte of the body does", () => {
    const tag = strongEntityTag('{"posts":{}}');
    assert.match(tag, /^"[A-Za-z0-9_-]{43}"$/);
    assert.equal(strongEntityTag('{"posts":{}}'), tag);
    assert.notEqual(strongEntityTag('{"posts":{} }'), tag);
  });

  it("match If-None-Match by weak comparison, in a list, or *", () => {
    const tag = strongEntityTag("body");
    assert.equal(noneMatchHolds(undefined, tag), false);
    assert.equal(noneMatchHolds(tag, tag), true);
    assert.equal(noneMatchHolds(`W/${tag}`, tag), true);
    assert.equal(noneMatchHolds(`"a", ${tag}`, tag), true);
    assert.equal(noneMatchHolds("*", tag), true);
    assert.equal(noneMatchHolds('"a", "b"', tag), false);
    assert.equal(noneMatchHolds(tag.slice(1, -1), tag), false, "an unquoted tag is not ours");
  });
});
