import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { callOptions, note, publication } from "./fixtures.ts";

describe("Mastodon: a repeated send with the same Idempotency-Key", () => {
  let sandbox: MastodonSandbox;
  let syndicator: MastodonSyndicator;

  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token" });
    syndicator = new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "token" });
  });
  beforeEach(() => sandbox.clearBehaviour());
  after(() => sandbox.close());

  it("yields one status, and the same URL both times", async () => {
    const before = sandbox.statuses.length;
    const first = await syndicator.syndicate(note(), publication, callOptions("same-key"));
    const second = await syndicator.syndicate(note(), publication, callOptions("same-key"));
    assert.equal(second, first);
    assert.equal(sandbox.statuses.length, before + 1);
    const sent = sandbox.requests.filter((request) => request.path === "/api/v1/statuses");
    assert.deepEqual(
      sent.slice(-2).map((request) => request.idempotencyKey),
      ["same-key", "same-key"],
    );
    assert.equal(syndicator.honoursIdempotencyKey, true);
  });

  it("yields a second status for a different key", async () => {
    const before = sandbox.statuses.length;
    const first = await syndicator.syndicate(note(), publication, callOptions("key-a"));
    const second = await syndicator.syndicate(note(), publication, callOptions("key-b"));
    assert.notEqual(second, first);
    assert.equal(sandbox.statuses.length, before + 2);
  });

  it("finds the first status when the answer to the first send was lost", async () => {
    // The status is created, but the answer never arrives: the run's timeout cancels the call.
    sandbox.setBehaviour({ hangMs: Number.POSITIVE_INFINITY, hangPhase: "after", times: 1 });
    const before = sandbox.statuses.length;
    const controller = new AbortController();
    const lost = syndicator.syndicate(note(), publication, {
      idempotencyKey: "lost-answer",
      signal: controller.signal,
    });
    while (sandbox.statuses.length === before) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error("timed out"));
    await assert.rejects(lost, (error: unknown) => error instanceof SyndicationError && !error.permanent);

    const url = await syndicator.syndicate(note(), publication, callOptions("lost-answer"));
    assert.equal(url, sandbox.statuses.at(-1)?.url);
    assert.equal(sandbox.statuses.length, before + 1, "the retry did not create another");
  });
});
