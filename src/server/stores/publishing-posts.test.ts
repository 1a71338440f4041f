import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Database } from "../../contract/database.ts";
import type { Post } from "../../contract/posts.ts";
import type { Logger } from "../logger.ts";
import type { PostService } from "../posts/post-service-interface.ts";
import type { ContentStore } from "./content-store.ts";
import { PublishingPosts, retryDelayMs } from "./publishing-posts.ts";

describe("retryDelayMs: a change the content store refused", () => {
  it("is tried again after 30 s, then twice as long each time, at most an hour", () => {
    assert.deepEqual(
      [1, 2, 3, 7, 8, 50].map(retryDelayMs),
      [30_000, 60_000, 120_000, 1_920_000, 3_600_000, 3_600_000],
    );
  });
});

describe("returnsOnCommit: whether nothing after a write-back's commit waits on the store (decision 0075)", () => {
  const post = { id: "1", url: "https://site.example/notes/1" } as Post;
  // Nothing here reaches the store, the database or the logger: a writeTogether that changes no post
  // has nothing to flush.
  const unused = new Proxy({}, { get: () => assert.fail("not reached") });
  const publishing = (inner: Partial<PostService>) =>
    new PublishingPosts(inner as PostService, unused as ContentStore, unused as Database, unused as Logger);

  it("is false outside writeTogether, where the store is reached before the write-back returns", () => {
    assert.equal(publishing({ returnsOnCommit: () => true }).returnsOnCommit(post), false);
  });

  it("inside writeTogether, is what the posts beneath promise, and false when they promise nothing", async () => {
    const promising = publishing({ returnsOnCommit: () => true });
    assert.equal(await promising.writeTogether(async () => promising.returnsOnCommit(post)), true);
    const refusing = publishing({ returnsOnCommit: () => false });
    assert.equal(await refusing.writeTogether(async () => refusing.returnsOnCommit(post)), false);
    const silent = publishing({});
    assert.equal(await silent.writeTogether(async () => silent.returnsOnCommit(post)), false);
  });
});
