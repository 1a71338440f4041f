// Decision 0062: a post sent to Mastodon as a thread, then edited and deleted, through the syndication
// core and the ledger, to the Mastodon sandbox. The thread's statuses are kept with the copy; an edit
// that changes one post makes one PUT and nothing else; an added post is appended once even when its
// answer is lost and the edit retried; removed posts are deleted, the last first; deleting the post
// leaves no status of the thread; and the instance's deletion limit makes the deletion wait, saying
// until when, and go on by itself from where it stopped.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Post } from "../../src/contract/posts.ts";
import { followUpView } from "../../src/plugin/page/follow-up-view.ts";
import { engines } from "../helpers/databases.ts";
import { collect } from "../syndication/syndication-fixture.ts";
import { mastodonThreadWorld } from "./mastodon-thread-world.ts";

/** The sandbox allows this many deletions in its 30-minute window (Mastodon: 30). */
const DELETION_LIMIT = 2;

const paragraphs = [
  "Walking along the old canal this morning I counted herons, cormorants and one kingfisher.",
  "The kingfisher sat on the rail of the lock gate, as if it owned the whole of the waterway.",
  "Further on, the towpath was closed for works, so I turned back past the mill and the boats.",
  "Herons stood in the reeds like posts, and the cormorants dried their wings on the buoys.",
  "Home by nine, cold and happy. Tomorrow the other way, towards the reservoir and the woods.",
];
const text = (parts: string[]) => parts.join("\n\n");

for (const engine of engines) {
  describe(`Mastodon: a thread's edits and deletion reach every post (${engine.name})`, () => {
    const thread = mastodonThreadWorld(engine, {
      targetTimeoutMs: 1_500,
      deletionLimit: DELETION_LIMIT,
    });

    const live = () => thread.sandbox.statuses.filter((status) => status.deletedAt === null);
    const requestsSince = (mark: number) =>
      thread.sandbox.requests.slice(mark).filter((request) => request.path.startsWith("/api/v1/statuses"));
    const threadOf = async (post: Post) =>
      (await thread.fixture.syndication.reads.entriesForPost(post.id)).find(
        (e) => e.targetUid === thread.mastodon.info.uid,
      )?.thread;

    async function sendThread(published: string, parts: string[]): Promise<Post> {
      const post = await thread.fixture.createPost(published, [thread.mastodon.info.uid], {
        content: text(parts),
      });
      const result = await thread.fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.targets[0]?.status, "syndicated");
      return post;
    }

    async function edit(post: Post, parts: string[]): Promise<void> {
      await thread.fixture.posts.update(post.url, { replace: { content: [text(parts)] } });
      await collect(await thread.fixture.syndication.runs.startBatch("manual"));
    }

    /** The thread's live statuses, in order, and that each replies to the one before. */
    function chainOf(firstId: string): string[] {
      const chain = [firstId];
      for (;;) {
        const next = live().find((status) => status.inReplyToId === chain.at(-1));
        if (!next) return chain;
        chain.push(next.id);
      }
    }

    it("keeps every status of the thread with the copy; an edit that changes post 2 makes one PUT", async () => {
      const start = thread.sandbox.statuses.length;
      const post = await sendThread("2024-02-01T00:00:00Z", paragraphs);
      const sent = thread.sandbox.statuses.slice(start);
      assert.equal(sent.length, 5);
      assert.deepEqual(
        (await threadOf(post))?.map((each) => each.id),
        sent.map((status) => status.id),
      );

      const changed = [...paragraphs];
      changed[1] = "The kingfisher sat on the rail of the lock gate, bright blue, as if it owned the canal.";
      const mark = thread.sandbox.requests.length;
      await edit(post, changed);
      const writes = requestsSince(mark).filter((request) => request.method !== "GET");
      assert.deepEqual(
        writes.map((request) => `${request.method} ${request.path}`),
        [`PUT /api/v1/statuses/${sent[1]?.id}`],
        "one PUT, to post 2; the others get no request",
      );
      const preview = thread.mastodon.preview(
        (await thread.fixture.posts.findByUrl(post.url))?.properties ?? {},
        {
          me: "https://example.org/",
          postUrlPattern: "",
          timezone: "UTC",
          name: "",
        },
      );
      assert.equal(sent[1]?.text, preview.thread?.[1]?.text);
      assert.equal(sent[0]?.editedAt, null, "post 1 untouched");
    });

    it("an added post is appended once, though its answer was lost and the edit retried", async () => {
      const start = thread.sandbox.statuses.length;
      const post = await sendThread("2024-02-02T00:00:00Z", paragraphs.slice(0, 3));
      const firstId = thread.sandbox.statuses[start]?.id ?? "";
      // The status is made, but its answer never arrives.
      thread.sandbox.setBehaviour({ hangMs: Number.POSITIVE_INFINITY, hangPhase: "after", times: 1 });
      await edit(post, paragraphs.slice(0, 4));
      assert.equal(thread.sandbox.statuses.length - start, 4, "post 4 was made; its answer never came");
      const [op] = await thread.fixture.syndication.reads.operationsForPost(post.id);
      assert.equal(op?.state, "failed");
      assert.equal((await threadOf(post))?.length, 3, "post 4 is not recorded");

      thread.sandbox.clearBehaviour();
      thread.advance(1000);
      await collect(await thread.fixture.syndication.runs.startBatch("manual"));
      assert.equal(thread.sandbox.statuses.length - start, 4, "appended once");
      const chain = chainOf(firstId);
      assert.equal(chain.length, 4);
      assert.deepEqual(
        (await threadOf(post))?.map((each) => each.id),
        chain,
      );
      // The retry found the status its mark stands for (decision 0066) and posted nothing again.
      const keys = thread.sandbox.requests
        .filter((request) => request.method === "POST" && request.path === "/api/v1/statuses")
        .slice(-2)
        .map((request) => request.idempotencyKey);
      assert.match(keys[1] ?? "", new RegExp(`^${op?.idempotencyKey}:4$`));
      assert.notEqual(keys[0], keys[1], "one POST for post 4");
    });

    it("removed posts are deleted, the last first; the rest are kept", async () => {
      const start = thread.sandbox.statuses.length;
      const post = await sendThread("2024-02-03T00:00:00Z", paragraphs.slice(0, 4));
      const ids = thread.sandbox.statuses.slice(start).map((status) => status.id);
      const mark = thread.sandbox.requests.length;
      await edit(post, paragraphs.slice(0, 2));
      assert.deepEqual(
        requestsSince(mark)
          .filter((request) => request.method !== "GET")
          .map((request) => `${request.method} ${request.path}`),
        [
          // The permalink goes to the last post: post 2 is now the last.
          `PUT /api/v1/statuses/${ids[1]}`,
          `DELETE /api/v1/statuses/${ids[3]}`,
          `DELETE /api/v1/statuses/${ids[2]}`,
        ],
      );
      assert.deepEqual(chainOf(ids[0] ?? ""), ids.slice(0, 2));
      assert.deepEqual(
        (await threadOf(post))?.map((each) => each.id),
        ids.slice(0, 2),
      );
    });

    it("deleting the post leaves no status of the thread, waiting for the deletion limit as told", async () => {
      const start = thread.sandbox.statuses.length;
      const post = await sendThread("2024-02-04T00:00:00Z", paragraphs);
      const ids = thread.sandbox.statuses.slice(start).map((status) => status.id);
      await thread.fixture.posts.delete(post.url);
      await collect(await thread.fixture.syndication.runs.startBatch("manual"));

      // Two deletions in this window, then the instance's 429: the last two posts are gone.
      assert.deepEqual(
        live()
          .filter((status) => ids.includes(status.id))
          .map((status) => status.id),
        ids.slice(0, 3),
      );
      assert.deepEqual(
        (await threadOf(post))?.map((each) => each.id),
        ids.slice(0, 3),
        "what is deleted is saved",
      );
      const [op] = await thread.fixture.syndication.reads.operationsForPost(post.id);
      assert.equal(op?.state, "failed");
      assert.equal(op?.permanent, false);
      assert.equal(op?.lastStatus, 429);
      const windowEnd = Math.ceil(thread.now() / 1_800_000) * 1_800_000;
      assert.ok(op?.nextAttemptAt, "it says when it goes on");
      assert.ok(Math.abs((op?.nextAttemptAt?.getTime() ?? 0) - windowEnd) < 5_000);
      const view = op ? followUpView(op, [thread.mastodon]) : undefined;
      assert.equal(view?.kind, "waiting");
      assert.match(view?.error ?? "", /2 of 5 statuses of the thread deleted/);

      // Before the window ends nothing more is tried; after it, the rest go by themselves.
      const mark = thread.sandbox.requests.length;
      await collect(await thread.fixture.syndication.runs.startBatch("manual"));
      assert.equal(requestsSince(mark).length, 0);
      thread.advance(windowEnd - thread.now() + 1000);
      await collect(await thread.fixture.syndication.runs.startBatch("manual"));
      thread.advance(31 * 60 * 1000);
      await collect(await thread.fixture.syndication.runs.startBatch("manual"));
      assert.deepEqual(
        live().filter((status) => ids.includes(status.id)),
        [],
        "no status of the thread is left",
      );
      const deletes = thread.sandbox.requests
        .filter((request) => request.method === "DELETE")
        .map((r) => r.path);
      assert.deepEqual(
        [...new Set(deletes.filter((path) => ids.some((id) => path.endsWith(`/${id}`))))],
        [...ids].reverse().map((id) => `/api/v1/statuses/${id}`),
        "the last first",
      );
      const [done] = await thread.fixture.syndication.reads.operationsForPost(post.id);
      assert.equal(done?.state, "done");
    });
  });
}
