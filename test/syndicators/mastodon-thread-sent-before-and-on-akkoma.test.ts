// Decision 0062: a Mastodon thread sent before its posts were kept is found through the first status's
// context (the chain of the account's own replies, each made soon after the one before), so that
// deleting the post still deletes every status of it but never a later answer of the user's own;
// and a thread sent to Akkoma carries content_type text/plain on every status, as a single one does.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { threadGapMs } from "../../src/syndicators/mastodon/mastodon-thread-edit.ts";
import { callOptions, note, publication } from "./fixtures.ts";

const paragraphs = [
  "Walking along the old canal this morning I counted herons, cormorants and one kingfisher.",
  "The kingfisher sat on the rail of the lock gate, as if it owned the whole of the waterway.",
  "Further on, the towpath was closed for works, so I turned back past the mill and the boats.",
];
const long = note({ content: { text: paragraphs.join("\n\n"), html: "" } });

describe("Mastodon: a thread sent before its posts were kept, and threads on Akkoma", () => {
  let sandbox: MastodonSandbox;
  let akkoma: MastodonSandbox;
  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token" });
    akkoma = await startMastodonSandbox({ accessToken: "token", software: "akkoma" });
  });
  after(async () => {
    await sandbox.close();
    await akkoma.close();
  });

  const syndicator = (url: string, software?: string) =>
    new MastodonSyndicator({
      url,
      user: "demo",
      accessToken: "token",
      characterLimit: 120,
      thread: true,
      includeCategories: false,
      ...(software ? { software } : {}),
    });

  it("deletes every status of a thread it holds no posts of, and not the user's later answer", async () => {
    const mastodon = syndicator(sandbox.url);
    const url = await mastodon.syndicate(long, publication, callOptions("sent-before-posts-were-kept"));
    const thread = sandbox.statuses.slice(-3);
    assert.equal(thread.length, 3);
    // The user went on with the thread in the app, later: an answer to its last post.
    const later = sandbox.addStatus("Adding: the heron was still there at noon.", { username: "demo" });
    later.inReplyToId = thread[2]?.id ?? null;
    later.createdAt = new Date(Date.parse(thread[2]?.createdAt ?? "") + threadGapMs + 60_000).toISOString();

    await mastodon.delete(long, publication, {
      url,
      idempotencyKey: "delete",
      signal: AbortSignal.timeout(10_000),
    });
    assert.deepEqual(
      thread.map((status) => status.deletedAt !== null),
      [true, true, true],
      "every status of the thread",
    );
    assert.equal(later.deletedAt, null, "the user's own answer stays");
    const deletes = sandbox.requests.filter((request) => request.method === "DELETE").map((r) => r.path);
    assert.deepEqual(
      deletes,
      [...thread].reverse().map((status) => `/api/v1/statuses/${status.id}`),
    );
  });

  it("sends every status of a thread to Akkoma as text/plain", async () => {
    const url = await syndicator(akkoma.url, "akkoma").syndicate(long, publication, callOptions("akkoma"));
    assert.ok(url);
    assert.equal(akkoma.statuses.length, 3);
    assert.deepEqual(
      akkoma.statuses.map((status) => status.contentType),
      ["text/plain", "text/plain", "text/plain"],
    );
  });
});
