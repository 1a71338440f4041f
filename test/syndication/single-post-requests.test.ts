import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { PostNotFoundError } from "../../src/contract/posts.ts";
import { TargetNotConfirmableError } from "../../src/syndication/syndication.ts";
import type { SyndicationEvent } from "../../src/syndication/types.ts";
import { engines } from "../helpers/databases.ts";
import { openSyndication, type SyndicationFixture, TestTarget } from "./syndication-fixture.ts";

const uid = "https://social.example/@me";

for (const engine of engines) {
  describe(`syndicating one post (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(uid)]);
    });
    after(() => fixture.close());

    it("throws PostNotFoundError for a URL with no post, or a deleted post", async () => {
      await assert.rejects(
        fixture.syndication.runs.syndicatePost("https://example.org/notes/nothing-here/", "manual"),
        PostNotFoundError,
      );
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [uid]);
      await fixture.posts.delete(post.url);
      await assert.rejects(fixture.syndication.runs.syndicatePost(post.url, "manual"), PostNotFoundError);
      assert.equal(fixture.targets[0]?.calls.length, 0);
    });

    it("leaves a draft alone, saying why", async () => {
      const post = await fixture.createPost("2024-01-02T00:00:00Z", [uid], { "post-status": "draft" });
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.status, "unchanged");
      assert.deepEqual(result.targets, [
        {
          uid,
          name: `Target ${uid}`,
          status: "skipped",
          error: "The post is a draft; it is syndicated once published",
        },
      ]);
      assert.equal(fixture.targets[0]?.calls.length, 0);
    });

    it("a post without targets is unchanged", async () => {
      const post = await fixture.createPost("2024-01-03T00:00:00Z", []);
      const result = await fixture.syndication.runs.syndicatePost(post.url, "webhook");
      assert.deepEqual(result, { url: post.url, status: "unchanged", syndication: [], targets: [] });
    });

    it("is recorded as a single run, and told to event listeners", async () => {
      const events: SyndicationEvent[] = [];
      const stop = fixture.syndication.runs.onEvent((event) => events.push(event));
      const post = await fixture.createPost("2024-01-04T00:00:00Z", [uid]);
      const result = await fixture.syndication.runs.syndicatePost(post.url, "cli");
      stop();
      const [run] = await fixture.syndication.reads.recentRuns(1);
      assert.equal(run?.kind, "single");
      assert.equal(run?.trigger, "cli");
      assert.equal(run?.status, "finished");
      assert.deepEqual(run?.summary, { posts: 1, syndicated: 1, partial: 0, failed: 0, skipped: 0 });
      assert.deepEqual(
        events.map((event) => event.type),
        ["run-started", "result", "run-finished"],
      );
      const resultEvent = events[1];
      assert.ok(resultEvent?.type === "result");
      assert.deepEqual(resultEvent.result, result);
      assert.equal(resultEvent.runId, run?.id);
      const attempts = await fixture.syndication.reads.attemptsForPost(post.id);
      assert.equal(attempts[0]?.runId, run?.id);
      assert.equal(attempts[0]?.trigger, "cli");
    });

    it("a run of a post every target already has is stored as skipping nothing", async () => {
      const post = await fixture.createPost("2024-01-05T00:00:00Z", [uid]);
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      const again = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(again.status, "unchanged");
      const [run] = await fixture.syndication.reads.recentRuns(1);
      assert.deepEqual(run?.summary, { posts: 1, syndicated: 0, partial: 0, failed: 0, skipped: 0 });
    });

    it("confirming a target never sent is refused; so is a copy URL that is not http(s)", async () => {
      const post = await fixture.createPost("2024-01-05T00:00:00Z", ["https://other.example/"]);
      await assert.rejects(
        fixture.syndication.copies.confirm(post.url, "https://other.example/", "https://other.example/1"),
        TargetNotConfirmableError,
      );
      await assert.rejects(
        fixture.syndication.copies.confirm(post.url, "https://other.example/", "javascript:alert(1)"),
      );
    });
  });
}
