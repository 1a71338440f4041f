// Decision 0064: a Bluesky thread sent before its posts were kept with the copy (no `thread` on the
// copy) is found at deletion from the send's idempotency key, which gave each post's record key: every
// record of it still there is deleted in one applyWrites, and only records of the account's own
// repository that reply in the chain of the first; a single post is deleted alone as before.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { threadRecordKey } from "../../src/syndicators/bluesky/bluesky-thread.ts";
import type { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import type { FakePds } from "../fakes/bluesky-pds.ts";
import { startThreadingBluesky } from "../fakes/threading-bluesky.ts";
import { engines } from "../helpers/databases.ts";
import { collect, openSyndication, type SyndicationFixture } from "../syndication/syndication-fixture.ts";

const paragraph = (n: number) =>
  `Part ${n}: ${"Swifts over the roofs, a blackbird on the chimney, sparrows in the gutter. ".repeat(3).trim()}`;

for (const engine of engines) {
  describe(`Bluesky: a thread sent before its posts were kept is deleted whole (${engine.name})`, () => {
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

    /** Sends `content`, then forgets the thread's posts, as a copy sent before migration 020 has none. */
    const sendAsBefore = async (published: string, content: string) => {
      const post = await fixture.createPost(published, [bluesky.info.uid], { content });
      assert.equal(
        (await fixture.syndication.runs.syndicatePost(post.url, "manual")).targets[0]?.status,
        "syndicated",
      );
      await fixture.database.query("UPDATE syndication_targets SET thread = NULL WHERE post_id = $1", [
        post.id,
      ]);
      const [entry] = await fixture.syndication.reads.entriesForPost(post.id);
      assert.equal(entry?.thread, null);
      return { post, key: entry?.idempotencyKey ?? "" };
    };
    const uriOf = (rkey: string) => `at://${pds.did}/app.bsky.feed.post/${rkey}`;
    const writes = () =>
      pds.calls
        .filter(
          (call) => call.nsid.startsWith("com.atproto.repo.") && call.nsid !== "com.atproto.repo.getRecord",
        )
        .map((call) => call.nsid);

    it("deletes every post of the thread in one commit, and not a record that is no reply in its chain", async () => {
      const { post, key } = await sendAsBefore("2024-05-01T00:00:00Z", [1, 2, 3].map(paragraph).join("\n\n"));
      const thread = [0, 1, 2].map((index) => uriOf(threadRecordKey(key, index)));
      assert.deepEqual(pds.records.filter((record) => thread.includes(record.uri)).length, 3);
      // A record at the key place 4 would have, that answers the first post: not the thread's.
      const stranger = threadRecordKey(key, 3);
      const first = pds.records.find((record) => record.uri === thread[0]);
      pds.records.push({
        uri: uriOf(stranger),
        cid: first?.cid ?? "",
        collection: "app.bsky.feed.post",
        rkey: stranger,
        value: {
          $type: "app.bsky.feed.post",
          text: "Not part of it",
          createdAt: "2024-05-02T00:00:00Z",
          reply: { root: { uri: thread[0], cid: first?.cid }, parent: { uri: thread[0], cid: first?.cid } },
        },
      });

      pds.calls.length = 0;
      await fixture.posts.delete(post.url);
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.deepEqual(
        pds.records.filter((record) => thread.includes(record.uri)),
        [],
        "no post of the thread is left",
      );
      assert.ok(
        pds.records.some((record) => record.uri === uriOf(stranger)),
        "a record outside the chain stays",
      );
      assert.deepEqual(writes(), ["com.atproto.repo.applyWrites"], "one commit");
      const deletion = (await fixture.syndication.reads.operationsForPost(post.id)).find(
        (op) => op.operation === "delete",
      );
      assert.equal(deletion?.state, "done");
    });

    it("deletes the posts still there when the user deleted the last one in an app", async () => {
      const { post, key } = await sendAsBefore("2024-05-03T00:00:00Z", [4, 5, 6].map(paragraph).join("\n\n"));
      const thread = [0, 1, 2].map((index) => uriOf(threadRecordKey(key, index)));
      const last = pds.records.findIndex((record) => record.uri === thread[2]);
      pds.records.splice(last, 1);
      pds.calls.length = 0;
      await fixture.posts.delete(post.url);
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.deepEqual(
        pds.records.filter((record) => thread.includes(record.uri)),
        [],
      );
      assert.deepEqual(writes(), ["com.atproto.repo.applyWrites"], "one commit, naming only records there");
    });

    it("a single post is deleted alone, as before", async () => {
      const { post, key } = await sendAsBefore("2024-05-04T00:00:00Z", "A short note about swifts.");
      const others = pds.records.filter((record) => record.uri !== uriOf(threadRecordKey(key, 0)));
      pds.calls.length = 0;
      await fixture.posts.delete(post.url);
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.deepEqual(pds.records, others);
      assert.deepEqual(writes(), ["com.atproto.repo.deleteRecord"]);
    });
  });
}
