// Decision 0055: a long post sent to Mastodon as a thread, through the syndication core and the ledger,
// to the Mastodon sandbox. Each status replies to the one before and is recorded before the next is
// sent, so a lost answer or a refusal part way leaves a thread that a retry finishes: never posted
// twice, never restarted at the first status. The preview's posts are what the sandbox received.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { readThreadProgress } from "../../src/contract/thread-progress.ts";
import { targetViews } from "../../src/plugin/page/target-view.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { mastodonLength } from "../../src/syndicators/mastodon/mastodon-length.ts";
import { engines } from "../helpers/databases.ts";
import {
  ledgerRow,
  openSyndication,
  publication,
  type SyndicationFixture,
} from "../syndication/syndication-fixture.ts";

// Room for a busy machine: the thread's five statuses go over HTTP within one target timeout.
const TIMEOUT_MS = 1_500;
const LIMIT = 120;

const paragraphs = [
  "Walking along the old canal this morning I counted herons, cormorants and one kingfisher.",
  "The kingfisher sat on the rail of the lock gate, @alice@social.example, as if it owned it.",
  "Further on, the towpath was closed: https://example.org/a/long/notice/about/the/towpath/works",
  "So I turned back past the mill and the boats, where #Herons stood in the reeds like posts.",
  "Home by nine, cold and happy. Tomorrow the other way, towards the reservoir and the woods.",
];
const content = paragraphs.join("\n\n");

function statusRequests(sandbox: MastodonSandbox) {
  return sandbox.requests.filter(
    (request) => request.method === "POST" && request.path === "/api/v1/statuses",
  );
}

/** The statuses form one chain, in order, the first a reply to nothing. */
function assertOneChain(sandbox: MastodonSandbox) {
  const [first, ...rest] = sandbox.statuses;
  assert.equal(first?.inReplyToId, null);
  rest.forEach((status, index) => {
    assert.equal(
      status.inReplyToId,
      sandbox.statuses[index]?.id,
      `status ${index + 2} replies to ${index + 1}`,
    );
  });
}

for (const engine of engines) {
  describe(`Mastodon: a long post as a thread, resumed after a failure (${engine.name})`, () => {
    let sandbox: MastodonSandbox;
    let mastodon: MastodonSyndicator;
    let fixture: SyndicationFixture<MastodonSyndicator>;

    before(async () => {
      sandbox = await startMastodonSandbox({ accessToken: "token" });
      mastodon = new MastodonSyndicator({
        url: sandbox.url,
        user: "demo",
        accessToken: "token",
        characterLimit: LIMIT,
        thread: true,
        threadNumbering: true,
        includeCategories: false,
      });
      fixture = await openSyndication(engine, [mastodon], { targetTimeoutMs: TIMEOUT_MS });
    });
    beforeEach(() => {
      sandbox.clearBehaviour();
      sandbox.statuses.length = 0;
      sandbox.requests.length = 0;
    });
    after(async () => {
      await fixture.close();
      await sandbox.close();
    });

    it("previews five posts and sends exactly those, byte for byte, as one chain", async () => {
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [mastodon.info.uid], { content });
      const preview = mastodon.preview(post.properties, publication);
      const posts = preview.thread?.map((each) => each.text) ?? [];
      assert.equal(posts.length, 5);
      for (const each of preview.thread ?? []) {
        assert.equal(each.count, mastodonLength(each.text));
        assert.ok(each.count <= LIMIT, each.text);
      }
      const result = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(result.targets[0]?.status, "syndicated");
      assert.deepEqual(
        sandbox.statuses.map((status) => Buffer.from(status.text)),
        posts.map((text) => Buffer.from(text)),
      );
      assertOneChain(sandbox);
      assert.equal(
        (await ledgerRow(fixture.database, post.id, mastodon.info.uid))?.url,
        sandbox.statuses[0]?.url,
      );
    });

    it("the answer to status 3 of 5 lost: the retry sends 3 again with its key, then 4 and 5; one chain, none twice", async () => {
      sandbox.setBehaviour({ hangMs: Number.POSITIVE_INFINITY, hangPhase: "after", skip: 2, times: 1 });
      const post = await fixture.createPost("2024-01-02T00:00:00Z", [mastodon.info.uid], { content });
      const first = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(first.targets[0]?.status, "failed");
      assert.equal(sandbox.statuses.length, 3, "status 3 was made; its answer never came");
      const entry = (await fixture.syndication.reads.entriesForPost(post.id)).find(
        (e) => e.targetUid === mastodon.info.uid,
      );
      assert.equal(readThreadProgress(entry?.checkpoint)?.sent.length, 2, "1 and 2 recorded");

      const retried = await fixture.syndication.runs.syndicatePost(post.url, "manual", { retryFailed: true });
      assert.equal(retried.targets[0]?.status, "syndicated");
      assert.equal(sandbox.statuses.length, 5);
      assertOneChain(sandbox);
      assert.equal(new Set(sandbox.statuses.map((status) => status.text)).size, 5, "none twice");
      const keys = statusRequests(sandbox).map((request) => request.idempotencyKey?.split(":").at(-1));
      assert.deepEqual(keys, ["1", "2", "3", "3", "4", "5"], "the retry began at status 3");
      const row = await ledgerRow(fixture.database, post.id, mastodon.info.uid);
      assert.equal(row?.url, sandbox.statuses[0]?.url, "the link written back is the first status's");
      const stored = await fixture.posts.findByUrl(post.url);
      assert.deepEqual(stored?.properties.syndication, [sandbox.statuses[0]?.url]);
    });

    it("status 3 refused: 4 and 5 are not sent, the row says 2 of 5 and why, and Retry goes on from 3", async () => {
      sandbox.setBehaviour({
        status: 422,
        error: "Validation failed: Text looks like spam",
        skip: 2,
        times: 1,
      });
      const post = await fixture.createPost("2024-01-03T00:00:00Z", [mastodon.info.uid], { content });
      const first = await fixture.syndication.runs.syndicatePost(post.url, "manual");
      assert.equal(first.targets[0]?.status, "failed");
      assert.equal(sandbox.statuses.length, 2, "4 and 5 were not sent");
      assert.equal(statusRequests(sandbox).length, 3);
      const row = await ledgerRow(fixture.database, post.id, mastodon.info.uid);
      assert.equal(row?.permanent, true);
      assert.match(row?.last_error ?? "", /looks like spam/);

      const entries = await fixture.syndication.reads.entriesForPost(post.id);
      const [view] = targetViews(post, entries, [mastodon], new Date());
      assert.equal(view?.kind, "refused");
      assert.deepEqual(view?.thread, { sent: 2, total: 5, next: 3 });
      assert.match(view?.error ?? "", /looks like spam/);

      const retried = await fixture.syndication.runs.retry(post.url);
      assert.equal(retried.targets[0]?.status, "syndicated");
      assert.equal(sandbox.statuses.length, 5);
      assertOneChain(sandbox);
      const keys = statusRequests(sandbox).map((request) => request.idempotencyKey?.split(":").at(-1));
      assert.deepEqual(keys, ["1", "2", "3", "3", "4", "5"]);
      const after = targetViews(
        post,
        await fixture.syndication.reads.entriesForPost(post.id),
        [mastodon],
        new Date(),
      );
      assert.equal(after[0]?.thread, null);
    });

    it("a thread option off keeps today's cut and link: one status", async () => {
      const single = new MastodonSyndicator({
        url: sandbox.url,
        user: "demo",
        accessToken: "token",
        characterLimit: LIMIT,
      });
      const post = await fixture.createPost("2024-01-04T00:00:00Z", [], { content });
      const preview = single.preview(post.properties, publication);
      assert.equal(preview.thread, undefined);
      assert.equal(preview.cut, true);
      assert.equal(preview.permalink, "text");
    });
  });
}
