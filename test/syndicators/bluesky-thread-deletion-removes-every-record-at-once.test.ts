// Decision 0058: a post sent to Bluesky as a thread keeps its records with the copy; an edit leaves the
// thread as it is ("kept"); deleting the post deletes every record of the thread in one applyWrites,
// and a deletion carried out again (its answer lost) finds nothing left to delete and succeeds.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { threadRecordKey } from "../../src/syndicators/bluesky/bluesky-thread.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  openSyndication,
  publication,
  type SyndicationFixture,
} from "../syndication/syndication-fixture.ts";

const paragraph = (n: number) =>
  `Part ${n}: ${"Herons on the canal, cormorants on the posts, a kingfisher on the lock gate. ".repeat(3).trim()}`;

for (const engine of engines) {
  describe(`Bluesky: a thread is kept on edit and deleted whole (${engine.name})`, () => {
    let pds: FakePds;
    let bluesky: BlueskySyndicator;
    let fixture: SyndicationFixture<BlueskySyndicator>;
    before(async () => {
      pds = await startFakePds({ handle: "alice.example.com", password: "pw" });
      bluesky = new BlueskySyndicator({
        handle: "alice.example.com",
        password: "pw",
        serviceUrl: pds.url,
        thread: true,
        linkCard: false,
        appendUrl: "never",
      });
      fixture = await openSyndication(engine, [bluesky], { retry: { baseMs: 1, maxMs: 1 } });
    });
    after(async () => {
      await fixture.close();
      await pds.close();
    });

    it("keeps the thread's records; an edit is kept; deleting the post deletes all three in one commit", async () => {
      const content = [1, 2, 3].map(paragraph).join("\n\n");
      const post = await fixture.createPost("2024-03-01T00:00:00Z", [bluesky.info.uid], { content });
      const sent = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(sent.targets[0]?.status, "syndicated");
      assert.equal(pds.records.length, 3);
      const [entry] = await fixture.syndication.reads.entriesForPost(post.id);
      const keys = [0, 1, 2].map((index) => threadRecordKey(entry?.idempotencyKey ?? "", index));
      assert.deepEqual(
        entry?.thread?.map((each) => each.id),
        keys.map((rkey) => `at://${pds.did}/app.bsky.feed.post/${rkey}`),
      );

      await fixture.posts.update(post.url, {
        replace: { content: [[1, 2, 4].map(paragraph).join("\n\n")] },
      });
      await collect(await fixture.syndication.runs.startBatch("manual"));
      const [kept] = await fixture.syndication.reads.operationsForPost(post.id);
      assert.equal(kept?.operation, "update");
      assert.equal(kept?.state, "kept");
      assert.equal(pds.records.length, 3, "the thread is left as it was");

      pds.calls.length = 0;
      await fixture.posts.delete(post.url);
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.deepEqual(pds.records, [], "no record of the thread is left");
      const writes = pds.calls.filter(
        (call) => call.nsid.startsWith("com.atproto.repo.") && call.nsid !== "com.atproto.repo.getRecord",
      );
      assert.deepEqual(
        writes.map((call) => [call.nsid, call.status]),
        [["com.atproto.repo.applyWrites", 200]],
        "one commit",
      );
      const deletion = (await fixture.syndication.reads.operationsForPost(post.id)).find(
        (op) => op.operation === "delete",
      );
      assert.equal(deletion?.state, "done");
      const [after] = await fixture.syndication.reads.entriesForPost(post.id);
      assert.equal(after?.thread, null, "a deleted copy keeps no posts");
    });

    it("a deletion carried out again after its answer was lost finds nothing left and succeeds", async () => {
      const content = [5, 6, 7].map(paragraph).join("\n\n");
      const post = await fixture.createPost("2024-03-02T00:00:00Z", [bluesky.info.uid], { content });
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      const [entry] = await fixture.syndication.reads.entriesForPost(post.id);
      const thread = entry?.thread ?? [];
      assert.equal(thread.length, 3);
      const options = {
        url: entry?.url ?? "",
        idempotencyKey: "delete-key",
        signal: AbortSignal.timeout(10_000),
        thread,
      };
      await bluesky.delete(post.properties, publication, options);
      assert.equal(pds.records.length, 0);
      pds.calls.length = 0;
      await bluesky.delete(post.properties, publication, options);
      assert.equal(pds.records.length, 0);
      assert.equal(
        pds.calls.filter((call) => call.nsid === "com.atproto.repo.applyWrites").length,
        0,
        "nothing left to delete: no commit",
      );
    });
  });
}
