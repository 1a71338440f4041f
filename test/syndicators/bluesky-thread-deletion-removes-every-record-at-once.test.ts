// Decision 0062: a post sent to Bluesky as a thread keeps its records with the copy; an edit leaves the
// thread as it is ("kept") unless the user asks to replace it, which deletes its records and writes
// the edited thread in one applyWrites (a repeat makes no other); deleting the post deletes every
// record of the thread in one applyWrites, and a deletion carried out again (its answer lost) finds
// nothing left to delete and succeeds.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { threadRecordKey } from "../../src/syndicators/bluesky/bluesky-thread.ts";
import type { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import type { FakePds } from "../fakes/bluesky-pds.ts";
import { startThreadingBluesky, threadParagraph } from "../fakes/threading-bluesky.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  openSyndication,
  publication,
  type SyndicationFixture,
} from "../syndication/syndication-fixture.ts";

const paragraph = threadParagraph;

for (const engine of engines) {
  describe(`Bluesky: a thread is kept on edit and deleted whole (${engine.name})`, () => {
    let pds: FakePds;
    let bluesky: BlueskySyndicator;
    let fixture: SyndicationFixture<BlueskySyndicator>;
    before(async () => {
      ({ pds, bluesky: bluesky } = await startThreadingBluesky());
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

    it("Replace the thread: the old records go and the edited thread takes their place, in one commit", async () => {
      const content = [8, 9, 10].map(paragraph).join("\n\n");
      const post = await fixture.createPost("2024-03-03T00:00:00Z", [bluesky.info.uid], { content });
      await fixture.syndication.runs.syndicatePost(post.url, "manual");
      const [sent] = await fixture.syndication.reads.entriesForPost(post.id);
      const oldUris = sent?.thread?.map((each) => each.id) ?? [];
      assert.equal(oldUris.length, 3);
      const others = pds.records.filter((record) => !oldUris.includes(record.uri));

      const edited = [8, 9, 11, 12].map(paragraph);
      await fixture.posts.update(post.url, { replace: { content: [edited.join("\n\n")] } });
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.equal((await fixture.syndication.reads.operationsForPost(post.id))[0]?.state, "kept");

      pds.calls.length = 0;
      assert.equal(await fixture.syndication.copies.replaceThread(post.url, bluesky.info.uid), true);
      const result = await fixture.syndication.runs.followPost(post.url, "manual", {
        targetUids: [bluesky.info.uid],
      });
      assert.equal(result.targets[0]?.status, "syndicated");
      const mine = pds.records.filter((record) => !others.includes(record));
      assert.deepEqual(
        mine.map((record) => record.value.text),
        edited,
        "exactly the edited thread",
      );
      assert.ok(
        mine.every((record) => !oldUris.includes(record.uri)),
        "no old record is left",
      );
      assert.equal(pds.calls.filter((call) => call.nsid === "com.atproto.repo.applyWrites").length, 1);
      const [after] = await fixture.syndication.reads.entriesForPost(post.id);
      assert.deepEqual(
        after?.thread?.map((each) => each.id),
        mine.map((record) => record.uri),
      );
      assert.equal(after?.url, after?.thread?.[0]?.url);
      const stored = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(stored?.properties.syndication, [after?.url], "the post links to the new thread");
      const [op] = await fixture.syndication.reads.operationsForPost(post.id);
      assert.equal(op?.state, "done");

      // The same replacement again (its answer lost): the new thread is found, nothing else is made.
      pds.calls.length = 0;
      const again = await bluesky.replace(stored?.properties ?? {}, publication, {
        url: sent?.url ?? "",
        idempotencyKey: op?.idempotencyKey ?? "",
        signal: AbortSignal.timeout(10_000),
        threadPosts: sent?.thread ?? [],
      });
      assert.equal(again, after?.url);
      assert.equal(pds.calls.filter((call) => call.nsid === "com.atproto.repo.applyWrites").length, 0);
      assert.equal(pds.records.length, others.length + 4);
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
        threadPosts: thread,
      };
      const uris = thread.map((each) => each.id);
      const left = () => pds.records.filter((record) => uris.includes(record.uri)).length;
      const others = pds.records.length - left();
      await bluesky.delete(post.properties, publication, options);
      assert.equal(left(), 0);
      pds.calls.length = 0;
      await bluesky.delete(post.properties, publication, options);
      assert.equal(left(), 0);
      assert.equal(pds.records.length, others, "nothing else was touched");
      assert.equal(
        pds.calls.filter((call) => call.nsid === "com.atproto.repo.applyWrites").length,
        0,
        "nothing left to delete: no commit",
      );
    });
  });
}
