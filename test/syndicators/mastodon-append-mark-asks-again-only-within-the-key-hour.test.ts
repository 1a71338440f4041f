// Decision 0066: a mark left by an append whose answer was lost is settled by finding the status among
// the answers to the marked post, or, while Mastodon still keeps the key (an hour), by the same
// request with the same key. Against the Mastodon sandbox over HTTP, whose clock (the key's hour) and
// possekit's move together: within the 50 minutes the status the text cannot show is found by its
// key; past the hour nothing is asked again (that would post a duplicate), and a status the text
// shows is still found.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { ThreadPost } from "../../src/contract/thread-progress.ts";
import { MastodonApi, statusUrl } from "../../src/syndicators/mastodon/mastodon-api.ts";
import { settleAppending } from "../../src/syndicators/mastodon/mastodon-append-mark.ts";

const minutes = (n: number) => n * 60 * 1000;

describe("Mastodon: an append's mark is asked for again with its key only within the key's hour", () => {
  let sandbox: MastodonSandbox;
  let api: MastodonApi;
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  const fields = { visibility: "public" };

  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token", now });
    api = new MastodonApi(sandbox.url, "token", { name: "Mastodon", signal: AbortSignal.timeout(10_000) });
  });
  after(() => sandbox.close());

  const posts = () => sandbox.requests.filter((r) => r.method === "POST" && r.path === "/api/v1/statuses");
  const live = () => sandbox.statuses.filter((status) => status.deletedAt === null);

  /** A thread of one whose append of `text` was made by the instance, its answer never read. */
  async function lostAppend(key: string, text: string): Promise<{ thread: ThreadPost[]; lostId: string }> {
    offsetMs = 0;
    const first = await api.postStatus({
      status: "The first post",
      mediaIds: [],
      visibility: "public",
      idempotencyKey: `${key}:1`,
    });
    const at = new Date(now()).toISOString();
    const lost = await api.postStatus({
      status: text,
      mediaIds: [],
      visibility: "public",
      inReplyToId: first.id,
      idempotencyKey: `${key}:2`,
    });
    return {
      thread: [{ id: first.id, url: statusUrl(first), appending: { key: `${key}:2`, text, at } }],
      lostId: lost.id,
    };
  }

  const mention = "Thanks to @heron@birds.example for the map of the towpath.";

  it("within 50 minutes: a status the text cannot show is found by its key, and nothing is made twice", async () => {
    const { thread, lostId } = await lostAppend("k-within", mention);
    offsetMs = minutes(49);
    const before = sandbox.statuses.length;
    const settled = await settleAppending(api, thread, fields, now);
    assert.deepEqual(
      settled?.map((post) => post.id),
      [thread[0]?.id, lostId],
    );
    assert.equal(posts().at(-1)?.idempotencyKey, "k-within:2", "asked again with its key");
    assert.equal(sandbox.statuses.length, before, "Mastodon answered with the status it made");
    assert.ok(settled?.every((post) => post.appending === undefined));
  });

  it("past the key's hour: never asked again (it would post a duplicate); the mark goes", async () => {
    const { thread } = await lostAppend("k-past", mention);
    offsetMs = minutes(61);
    const before = posts().length;
    const settled = await settleAppending(api, thread, fields, now);
    assert.equal(posts().length, before, "no POST");
    assert.equal(
      live().filter((status) => status.inReplyToId === thread[0]?.id).length,
      1,
      "the lost status, not a second one",
    );
    assert.deepEqual(
      settled?.map((post) => post.id),
      [thread[0]?.id],
    );
  });

  it("past the key's hour: a status the text shows is still found among the answers", async () => {
    const text = "Herons in the reeds, and the #cormorants on the buoys.";
    const { thread, lostId } = await lostAppend("k-found", text);
    offsetMs = minutes(120);
    const before = posts().length;
    const settled = await settleAppending(api, thread, fields, now);
    assert.equal(posts().length, before, "no POST");
    assert.deepEqual(
      settled?.map((post) => post.id),
      [thread[0]?.id, lostId],
    );
  });
});
