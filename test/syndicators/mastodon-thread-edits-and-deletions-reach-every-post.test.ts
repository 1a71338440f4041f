// Decision 0062: a post sent to Mastodon as a thread, then edited and deleted, through the syndication
// core and the ledger, to the Mastodon sandbox. The thread's statuses are kept with the copy; an edit
// that changes one post makes one PUT and nothing else; an added post is appended once even when its
// answer is lost and the edit retried; removed posts are deleted, the last first; deleting the post
// leaves no status of the thread; and the instance's deletion limit makes the deletion wait, saying
// until when, and go on by itself from where it stopped.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { Post } from "../../src/contract/posts.ts";
import { followUpView } from "../../src/plugin/page/follow-up-view.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { engines } from "../helpers/databases.ts";
import { collect, openSyndication, type SyndicationFixture } from "../syndication/syndication-fixture.ts";

const LIMIT = 120;
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
    let sandbox: MastodonSandbox;
    let mastodon: MastodonSyndicator;
    let fixture: SyndicationFixture<MastodonSyndicator>;
    /** Shared by the sandbox (its deletion window) and the core (when a wait is over). */
    let offsetMs = 0;
    const now = () => Date.now() + offsetMs;

    before(async () => {
      sandbox = await startMastodonSandbox({ accessToken: "token", deletionLimit: DELETION_LIMIT, now });
      mastodon = new MastodonSyndicator({
        url: sandbox.url,
        user: "demo",
        accessToken: "token",
        characterLimit: LIMIT,
        thread: true,
        includeCategories: false,
      });
      fixture = await openSyndication(engine, [mastodon], {
        targetTimeoutMs: 1_500,
        clock: now,
        retry: { baseMs: 1, maxMs: 1 },
      });
    });
    beforeEach(() => {
      sandbox.clearBehaviour();
      // A new deletion window for each test.
      offsetMs += 31 * 60 * 1000;
    });
    after(async () => {
      await fixture.close();
      await sandbox.close();
    });

    const live = () => sandbox.statuses.filter((status) => status.deletedAt === null);
    const requestsSince = (mark: number) =>
      sandbox.requests.slice(mark).filter((request) => request.path.startsWith("/api/v1/statuses"));
    const threadOf = async (post: Post) =>
      (await fixture.syndication.reads.entriesForPost(post.id)).find((e) => e.targetUid === mastodon.info.uid)
        ?.thread;

    async function sendThread(published: string, parts: string[]): Promise<Post> {
      const post = await fixture.createPost(published, [mastodon.info.uid], { content: text(parts) });
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.targets[0]?.status, "syndicated");
      return post;
    }

    async function edit(post: Post, parts: string[]): Promise<void> {
      await fixture.posts.update(post.url, { replace: { content: [text(parts)] } });
      await collect(await fixture.syndication.runs.startBatch("manual"));
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
      const start = sandbox.statuses.length;
      const post = await sendThread("2024-02-01T00:00:00Z", paragraphs);
      const sent = sandbox.statuses.slice(start);
      assert.equal(sent.length, 5);
      assert.deepEqual(
        (await threadOf(post))?.map((each) => each.id),
        sent.map((status) => status.id),
      );

      const changed = [...paragraphs];
      changed[1] = "The kingfisher sat on the rail of the lock gate, bright blue, as if it owned the canal.";
      const mark = sandbox.requests.length;
      await edit(post, changed);
      const writes = requestsSince(mark).filter((request) => request.method !== "GET");
      assert.deepEqual(
        writes.map((request) => `${request.method} ${request.path}`),
        [`PUT /api/v1/statuses/${sent[1]?.id}`],
        "one PUT, to post 2; the others get no request",
      );
      const preview = mastodon.preview((await fixture.posts.findByUrl(post.url))?.properties ?? {}, {
        me: "https://example.org/",
        postUrlPattern: "",
        timezone: "UTC",
        name: "",
      });
      assert.equal(sent[1]?.text, preview.thread?.[1]?.text);
      assert.equal(sent[0]?.editedAt, null, "post 1 untouched");
    });

    it("an added post is appended once, though its answer was lost and the edit retried", async () => {
      const start = sandbox.statuses.length;
      const post = await sendThread("2024-02-02T00:00:00Z", paragraphs.slice(0, 3));
      const firstId = sandbox.statuses[start]?.id ?? "";
      // The status is made, but its answer never arrives.
      sandbox.setBehaviour({ hangMs: Number.POSITIVE_INFINITY, hangPhase: "after", times: 1 });
      await edit(post, paragraphs.slice(0, 4));
      assert.equal(sandbox.statuses.length - start, 4, "post 4 was made; its answer never came");
      const [op] = await fixture.syndication.reads.operationsForPost(post.id);
      assert.equal(op?.state, "failed");
      assert.equal((await threadOf(post))?.length, 3, "post 4 is not recorded");

      sandbox.clearBehaviour();
      offsetMs += 1000;
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.equal(sandbox.statuses.length - start, 4, "appended once");
      const chain = chainOf(firstId);
      assert.equal(chain.length, 4);
      assert.deepEqual(
        (await threadOf(post))?.map((each) => each.id),
        chain,
      );
      // The retry found the status its mark stands for (decision 0066) and posted nothing again.
      const keys = sandbox.requests
        .filter((request) => request.method === "POST" && request.path === "/api/v1/statuses")
        .slice(-2)
        .map((request) => request.idempotencyKey);
      assert.match(keys[1] ?? "", new RegExp(`^${op?.idempotencyKey}:4$`));
      assert.notEqual(keys[0], keys[1], "one POST for post 4");
    });

    it("removed posts are deleted, the last first; the rest are kept", async () => {
      const start = sandbox.statuses.length;
      const post = await sendThread("2024-02-03T00:00:00Z", paragraphs.slice(0, 4));
      const ids = sandbox.statuses.slice(start).map((status) => status.id);
      const mark = sandbox.requests.length;
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
      const start = sandbox.statuses.length;
      const post = await sendThread("2024-02-04T00:00:00Z", paragraphs);
      const ids = sandbox.statuses.slice(start).map((status) => status.id);
      await fixture.posts.delete(post.url);
      await collect(await fixture.syndication.runs.startBatch("manual"));

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
      const [op] = await fixture.syndication.reads.operationsForPost(post.id);
      assert.equal(op?.state, "failed");
      assert.equal(op?.permanent, false);
      assert.equal(op?.lastStatus, 429);
      const windowEnd = Math.ceil(now() / 1_800_000) * 1_800_000;
      assert.ok(op?.nextAttemptAt, "it says when it goes on");
      assert.ok(Math.abs((op?.nextAttemptAt?.getTime() ?? 0) - windowEnd) < 5_000);
      const view = op ? followUpView(op, [mastodon]) : undefined;
      assert.equal(view?.kind, "waiting");
      assert.match(view?.error ?? "", /2 of 5 statuses of the thread deleted/);

      // Before the window ends nothing more is tried; after it, the rest go by themselves.
      const mark = sandbox.requests.length;
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.equal(requestsSince(mark).length, 0);
      offsetMs += windowEnd - now() + 1000;
      await collect(await fixture.syndication.runs.startBatch("manual"));
      offsetMs += 31 * 60 * 1000;
      await collect(await fixture.syndication.runs.startBatch("manual"));
      assert.deepEqual(
        live().filter((status) => ids.includes(status.id)),
        [],
        "no status of the thread is left",
      );
      const deletes = sandbox.requests.filter((request) => request.method === "DELETE").map((r) => r.path);
      assert.deepEqual(
        [...new Set(deletes.filter((path) => ids.some((id) => path.endsWith(`/${id}`))))],
        [...ids].reverse().map((id) => `/api/v1/statuses/${id}`),
        "the last first",
      );
      const [done] = await fixture.syndication.reads.operationsForPost(post.id);
      assert.equal(done?.state, "done");
    });
  });
}
