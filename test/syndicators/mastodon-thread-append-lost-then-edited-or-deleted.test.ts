// Decision 0066: an edit appends a status to a Mastodon thread, the status is made but its answer is
// lost, and the user changes the post again before the retry: the newer edit has another
// Idempotency-Key, so only the mark saved before the request tells it that a status may be there.
// Through the syndication core and the ledger, to the Mastodon sandbox over HTTP: after the newer
// edit (or the post's deletion) the instance holds exactly the thread the post says, one chain, each
// status once and recorded with the copy, or nothing at all.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Post } from "../../src/contract/posts.ts";
import { engines } from "../helpers/databases.ts";
import { collect, publication } from "../syndication/syndication-fixture.ts";
import { mastodonThreadWorld } from "./mastodon-thread-world.ts";

const paragraphs = [
  "Walking along the old canal this morning I counted herons, cormorants and one kingfisher.",
  "The kingfisher sat on the rail of the lock gate, as if it owned the whole of the waterway.",
  "Further on, the towpath was closed for works, so I turned back past the mill and the boats.",
  "Herons stood in the reeds like posts, and the #cormorants dried their wings on the buoys.",
  "Home by nine, cold and happy. Tomorrow the other way, towards the reservoir and the woods.",
];
const text = (parts: string[]) => parts.join("\n\n");

for (const engine of engines) {
  describe(`Mastodon: a status appended by an edit whose answer was lost is never left behind (${engine.name})`, () => {
    const thread = mastodonThreadWorld(engine, {
      // Each lost answer waits this long; room for a busy machine's sends, which must not time out.
      targetTimeoutMs: 4_000,
    });

    const live = () => thread.sandbox.statuses.filter((status) => status.deletedAt === null);
    const threadOf = async (post: Post) =>
      (await thread.fixture.syndication.reads.entriesForPost(post.id)).find(
        (e) => e.targetUid === thread.mastodon.info.uid,
      )?.thread;
    const posted = () =>
      thread.sandbox.requests.filter(
        (request) => request.method === "POST" && request.path === "/api/v1/statuses",
      );

    async function send(published: string, parts: string[]): Promise<{ post: Post; firstId: string }> {
      const start = thread.sandbox.statuses.length;
      const post = await thread.fixture.createPost(published, [thread.mastodon.info.uid], {
        content: text(parts),
      });
      const result = await thread.fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.targets[0]?.status, "syndicated", result.targets[0]?.error);
      return { post, firstId: thread.sandbox.statuses[start]?.id ?? "" };
    }

    async function edit(post: Post, parts: string[]): Promise<void> {
      await thread.fixture.posts.update(post.url, { replace: { content: [text(parts)] } });
      thread.advance(1000);
      await collect(await thread.fixture.syndication.runs.startBatch("manual"));
    }

    /** An edit whose appended status is made, but whose answer never arrives. */
    async function editWithAnswerLost(post: Post, parts: string[]): Promise<string | undefined> {
      const before = thread.sandbox.statuses.length;
      thread.sandbox.setBehaviour({ hangMs: Number.POSITIVE_INFINITY, hangPhase: "after", times: 1 });
      await edit(post, parts);
      thread.sandbox.clearBehaviour();
      assert.equal(thread.sandbox.statuses.length - before, 1, "the appended status was made");
      const [op] = await thread.fixture.syndication.reads.operationsForPost(post.id);
      assert.equal(op?.state, "failed", "its answer never came");
      return thread.sandbox.statuses.at(-1)?.id;
    }

    /** The live statuses made since `start`: exactly one chain from `firstId`, in order. */
    function onlyChain(start: number, firstId: string): string[] {
      const made = live().filter((status) => thread.sandbox.statuses.indexOf(status) >= start);
      const chain = [firstId];
      for (;;) {
        const next = made.filter((status) => status.inReplyToId === chain.at(-1));
        assert.ok(next.length <= 1, "no status twice");
        if (!next[0]) break;
        chain.push(next[0].id);
      }
      assert.deepEqual(made.map((status) => status.id).sort(), [...chain].sort(), "nothing beside the chain");
      return chain;
    }

    async function assertThreadIs(post: Post, start: number, firstId: string, posts: number): Promise<void> {
      const chain = onlyChain(start, firstId);
      assert.equal(chain.length, posts);
      const recorded = await threadOf(post);
      assert.deepEqual(
        recorded?.map((each) => each.id),
        chain,
        "every status recorded with the copy, in order",
      );
      assert.ok(
        recorded?.every((each) => each.appending === undefined),
        "no append left under way",
      );
      const stored = await thread.fixture.posts.findByUrl(post.url);
      const preview = thread.mastodon.preview(stored?.properties ?? {}, publication);
      assert.deepEqual(
        chain.map((id) => thread.sandbox.statuses.find((status) => status.id === id)?.text),
        (preview.thread ?? [{ text: preview.text }]).map((each) => each.text),
        "each status holds what the preview shows",
      );
    }

    it("edited again before the retry: the lost status is found, edited, and the thread goes on from it", async () => {
      const start = thread.sandbox.statuses.length;
      const { post, firstId } = await send("2024-03-01T00:00:00Z", paragraphs.slice(0, 3));
      const lost = await editWithAnswerLost(post, paragraphs.slice(0, 4));
      const marked = await threadOf(post);
      assert.equal(marked?.length, 3, "the lost status is not recorded");
      assert.ok(marked?.at(-1)?.appending, "but its append is marked on the post it answers");
      const firstKey = posted().at(-1)?.idempotencyKey;

      // The user changes the post again: its 4th paragraph, and a 5th.
      const changed = [...paragraphs];
      changed[3] = "Herons stood in the reeds like posts; the cormorants dried their wings on the red buoys.";
      await edit(post, changed);

      const newKeys = posted()
        .slice(-1)
        .map((request) => request.idempotencyKey);
      assert.notEqual(newKeys[0]?.split(":")[0], firstKey?.split(":")[0], "the newer edit has another key");
      assert.equal(
        posted().filter((request) => request.idempotencyKey === firstKey).length,
        1,
        "found among the answers (its hashtag read as sent), not asked for again",
      );
      await assertThreadIs(post, start, firstId, 5);
      assert.equal((await threadOf(post))?.[3]?.id, lost, "the lost status is the thread's 4th");
      const [op] = await thread.fixture.syndication.reads.operationsForPost(post.id);
      assert.equal(op?.state, "done");
    });

    it("edited again to fewer posts: the lost status is found and deleted", async () => {
      const start = thread.sandbox.statuses.length;
      const { post, firstId } = await send("2024-03-02T00:00:00Z", paragraphs.slice(0, 3));
      await editWithAnswerLost(post, paragraphs.slice(0, 4));
      await edit(post, paragraphs.slice(0, 2));
      await assertThreadIs(post, start, firstId, 2);
    });

    it("deleted before the retry: no status of the thread is left, the lost one too", async () => {
      const start = thread.sandbox.statuses.length;
      const { post, firstId } = await send("2024-03-03T00:00:00Z", paragraphs.slice(0, 3));
      const lost = await editWithAnswerLost(post, paragraphs.slice(0, 4));
      await thread.fixture.posts.delete(post.url);
      thread.advance(1000);
      await collect(await thread.fixture.syndication.runs.startBatch("manual"));
      assert.deepEqual(
        live().filter((status) => thread.sandbox.statuses.indexOf(status) >= start),
        [],
        "zero statuses left",
      );
      assert.ok(
        thread.sandbox.statuses.find((status) => status.id === lost)?.deletedAt,
        "the lost one deleted",
      );
      assert.ok(firstId);
      const ops = await thread.fixture.syndication.reads.operationsForPost(post.id);
      assert.equal(ops.find((op) => op.operation === "delete")?.state, "done");
    });

    it("a single status that was becoming a thread: edited back, or deleted, the lost status goes too", async () => {
      const short = "A short note from the canal: herons, cormorants and one kingfisher on the lock gate.";
      for (const [published, then] of [
        ["2024-03-04T00:00:00Z", "edit"],
        ["2024-03-05T00:00:00Z", "delete"],
      ] as const) {
        const start = thread.sandbox.statuses.length;
        const { post, firstId } = await send(published, [short]);
        assert.equal(await threadOf(post), null, "one status, no thread kept");
        await editWithAnswerLost(post, paragraphs.slice(0, 2));
        assert.equal((await threadOf(post))?.length, 1);
        if (then === "edit") {
          await edit(post, [`${short} Edited.`]);
          assert.deepEqual(onlyChain(start, firstId), [firstId], `${then}: the lost status is deleted`);
        } else {
          await thread.fixture.posts.delete(post.url);
          thread.advance(1000);
          await collect(await thread.fixture.syndication.runs.startBatch("manual"));
          assert.deepEqual(
            live().filter((status) => thread.sandbox.statuses.indexOf(status) >= start),
            [],
            `${then}: zero statuses left`,
          );
        }
      }
    });

    it("a status the instance shows otherwise than sent is asked for again with its key, within the key's hour", async () => {
      // Mastodon shows a remote mention without its domain: the text read back differs from the one sent.
      const start = thread.sandbox.statuses.length;
      const { post, firstId } = await send("2024-03-06T00:00:00Z", paragraphs.slice(0, 2));
      const withMention = [
        ...paragraphs.slice(0, 2),
        "Thanks to @heron@birds.example for the map of the towpath.",
      ];
      const lost = await editWithAnswerLost(post, withMention);
      const lostKey = posted().at(-1)?.idempotencyKey;
      const requests = thread.sandbox.requests.length;
      await edit(post, [...withMention, paragraphs[4] ?? ""]);
      const again = thread.sandbox.requests
        .slice(requests)
        .filter((request) => request.method === "POST" && request.path === "/api/v1/statuses");
      assert.equal(again[0]?.idempotencyKey, lostKey, "the lost request made again, with its own key");
      await assertThreadIs(post, start, firstId, 4);
      assert.equal(
        (await threadOf(post))?.[2]?.id,
        lost,
        "Mastodon answered with the status made the first time",
      );
    });
  });
}
