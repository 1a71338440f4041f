// Decision 0062: a thread's posts as the host keeps them are read back through one schema: the posts
// of a stored thread, or nothing for what is not one; and a post's digest changes with its text and,
// for the first, with its photos' alt text, so that an edit finds exactly the posts it changes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readCopyThread, threadPostDigest } from "./copy-thread.ts";

describe("a thread kept with its copy", () => {
  const posts = [
    { id: "1", url: "https://social.example/@me/1", digest: threadPostDigest("One") },
    { id: "2", url: "https://social.example/@me/2" },
  ];

  it("reads back the posts stored, as JSON text or as the value a driver parsed", () => {
    assert.deepEqual(readCopyThread(JSON.stringify(posts)), posts);
    assert.deepEqual(readCopyThread(posts), posts);
  });

  it("reads nothing from what is not a thread", () => {
    for (const value of [null, undefined, "", "{", "[]", [{ id: "", url: "x" }], { posts }, [{ id: "1" }]])
      assert.equal(readCopyThread(value), undefined, JSON.stringify(value));
  });

  it("a post's digest follows its text and the first post's alt text", () => {
    assert.equal(threadPostDigest("One"), threadPostDigest("One"));
    assert.notEqual(threadPostDigest("One"), threadPostDigest("One."));
    assert.notEqual(threadPostDigest("One", ["a heron"]), threadPostDigest("One", ["a crane"]));
    assert.notEqual(threadPostDigest("One", ["a heron"]), threadPostDigest("One"));
  });
});
