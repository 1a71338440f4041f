import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { note, publication } from "./fixtures.ts";

describe("Mastodon: the run's signal ends a call to an instance that hangs", () => {
  let sandbox: MastodonSandbox;
  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token" });
    sandbox.hang();
  });
  after(() => sandbox.close());

  it("rejects soon after the abort with a retryable error, and sends nothing more", async () => {
    const syndicator = new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "token" });
    const controller = new AbortController();
    const call = syndicator.syndicate(note(), publication, {
      idempotencyKey: "hang",
      signal: controller.signal,
    });
    // Abort once the request has reached the sandbox, so it is the hanging request that is cut.
    while (!sandbox.requests.some((request) => request.path === "/api/v1/statuses")) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const abortedAt = Date.now();
    controller.abort(new Error("timed out"));
    await assert.rejects(call, (error: unknown) => {
      assert.ok(error instanceof SyndicationError);
      assert.match(error.message, /^Mastodon: http:\/\/127\.0\.0\.1:\d+ did not answer in time/);
      assert.equal(error.permanent, false);
      return true;
    });
    // Generous, for a busy machine: a call that ignored the signal would hang until the test timed out.
    assert.ok(Date.now() - abortedAt < 10_000, "the call ended soon after the abort");
    assert.equal(sandbox.statuses.length, 0);
  });

  it("does not start when the signal is already aborted", async () => {
    const syndicator = new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "token" });
    const requestsBefore = sandbox.requests.length;
    await assert.rejects(
      syndicator.syndicate(note(), publication, { idempotencyKey: "k", signal: AbortSignal.abort() }),
      SyndicationError,
    );
    assert.equal(sandbox.requests.length, requestsBefore);
  });
});
