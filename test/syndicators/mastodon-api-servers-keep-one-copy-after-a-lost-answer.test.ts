// Pixelfed, GoToSocial and Akkoma/Pleroma speak Mastodon's API but answer a repeated send
// differently (dev/sandbox/mastodon-software.ts cites each from its source): for each, an answer
// lost after the status was made, then the retry the core makes, leave exactly one copy.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { SandboxSoftware } from "../../dev/sandbox/mastodon-software.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import type { SyndicateOptions } from "../../src/contract/syndicator.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { detectSoftware } from "../../src/syndicators/mastodon/mastodon-software.ts";
import { type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { HANG_MS, note, siteServedBy } from "./fixtures.ts";

/** The ledger's part in a send: the checkpoint an attempt saves is what the next one resumes from. */
function ledgerRow(idempotencyKey: string) {
  let saved: string | undefined;
  return {
    options(signal: AbortSignal = AbortSignal.timeout(HANG_MS)): SyndicateOptions {
      return {
        idempotencyKey,
        signal,
        ...(saved === undefined ? {} : { resumeFrom: saved }),
        checkpoint: async (value) => {
          saved = value;
        },
      };
    },
  };
}

const getJson = async (url: string) => {
  const answer = await fetch(url, { headers: { accept: "application/json" } });
  return answer.ok ? answer.json() : undefined;
};

describe("Mastodon-API servers: one copy after a lost answer and a retry", () => {
  let photos: PhotoServer;
  const sandboxes: MastodonSandbox[] = [];

  before(async () => {
    photos = await startPhotoServer();
  });
  after(async () => {
    await Promise.all([photos.close(), ...sandboxes.map((sandbox) => sandbox.close())]);
  });

  async function serverOf(software: SandboxSoftware) {
    const sandbox = await startMastodonSandbox({ accessToken: "token", user: "alice", software });
    sandboxes.push(sandbox);
    const found = await detectSoftware(sandbox.url, getJson);
    const syndicator = new MastodonSyndicator({
      url: sandbox.url,
      user: "alice",
      accessToken: "token",
      software: found,
    });
    return { sandbox, syndicator, found };
  }

  /** The first send's status is made, its answer never arrives, and the run gives up on it. */
  async function loseTheAnswer(sandbox: MastodonSandbox, send: (signal: AbortSignal) => Promise<string>) {
    sandbox.setBehaviour({ hangMs: Number.POSITIVE_INFINITY, hangPhase: "after", times: 1 });
    const before = sandbox.statuses.length;
    const controller = new AbortController();
    const lost = send(controller.signal);
    while (sandbox.statuses.length === before) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error("timed out"));
    await assert.rejects(lost, (error: unknown) => error instanceof SyndicationError && !error.permanent);
    sandbox.clearBehaviour();
  }

  const withPhoto = () => note({ photo: [{ url: `${photos.url}/photo.jpg`, alt: "A red bicycle" }] });

  it("Pixelfed: the retry's 400 'Duplicate idempotency key.' finds the first status among the account's", async () => {
    const { sandbox, syndicator, found } = await serverOf("pixelfed");
    assert.equal(found, "pixelfed", "detected from NodeInfo");
    const row = ledgerRow("pixelfed-lost");
    await loseTheAnswer(sandbox, (signal) =>
      syndicator.syndicate(withPhoto(), siteServedBy(photos.url), row.options(signal)),
    );

    const url = await syndicator.syndicate(withPhoto(), siteServedBy(photos.url), row.options());
    assert.equal(sandbox.statuses.length, 1, "exactly one copy");
    assert.equal(url, sandbox.statuses[0]?.url);
    assert.match(url, new RegExp(`^${sandbox.url}/p/alice/\\d+$`));
    const posts = sandbox.requests.filter(
      (request) => request.method === "POST" && request.path === "/api/v1/statuses",
    );
    assert.equal(posts.length, 2, "the retry did send, and was refused as a duplicate");
    assert.ok(
      sandbox.requests.some((request) => request.path === "/api/v1/accounts/1/statuses"),
      "the copy was looked up among the account's statuses",
    );
  });

  it("Pixelfed: a used key with no status behind it waits for the key to expire, not a failure for good", async () => {
    const { sandbox, syndicator } = await serverOf("pixelfed");
    // Pixelfed keeps the key before it checks the status: an empty status (403) still uses it up.
    const first = await fetch(`${sandbox.url}/api/v1/statuses`, {
      method: "POST",
      headers: { authorization: "Bearer token", "idempotency-key": "used-key", accept: "application/json" },
      body: new URLSearchParams({ status: "nothing" }),
    });
    assert.equal(first.status, 403);
    await assert.rejects(
      syndicator.syndicate(withPhoto(), siteServedBy(photos.url), ledgerRow("used-key").options()),
      (error: unknown) =>
        error instanceof SyndicationError && !error.permanent && error.retryAfterSeconds === 3600,
    );
    assert.equal(sandbox.statuses.length, 0);
  });

  it("Pixelfed: a post without a photo is 'not sent: a photo is required' in the preview and the send, never retried", async () => {
    const { sandbox, syndicator } = await serverOf("pixelfed");
    const preview = syndicator.preview(note(), siteServedBy(photos.url));
    assert.deepEqual(preview.notSent, { reason: "photoRequired" });
    const withOne = syndicator.preview(withPhoto(), siteServedBy(photos.url));
    assert.equal(withOne.notSent, undefined);
    await assert.rejects(
      syndicator.syndicate(note(), siteServedBy(photos.url), ledgerRow("text-only").options()),
      (error: unknown) =>
        error instanceof SyndicationError &&
        error.permanent &&
        error.message === "Pixelfed: not sent: a photo is required",
    );
    assert.equal(
      sandbox.requests.filter((request) => request.path === "/api/v1/statuses").length,
      0,
      "nothing was sent for Pixelfed to refuse",
    );
  });

  it("Pixelfed: a copy is edited with PUT and deleted with DELETE at its /p/ address", async () => {
    const { sandbox, syndicator } = await serverOf("pixelfed");
    const site = siteServedBy(photos.url);
    const url = await syndicator.syndicate(withPhoto(), site, ledgerRow("edit-me").options());
    const changed = withPhoto();
    changed.content = { text: "Edited words", html: "" };
    await syndicator.update(changed, site, {
      url,
      idempotencyKey: "e",
      signal: AbortSignal.timeout(HANG_MS),
    });
    assert.equal(sandbox.statuses[0]?.text, "Edited words");
    await syndicator.delete(changed, site, {
      url,
      idempotencyKey: "d",
      signal: AbortSignal.timeout(HANG_MS),
    });
    assert.ok(sandbox.statuses[0]?.deletedAt);
    const methods = sandbox.requests
      .filter((request) => /^\/api\/v1\/statuses\/\d+$/.test(request.path))
      .map((request) => request.method);
    assert.deepEqual(methods, ["GET", "PUT", "DELETE"]);
  });

  it("GoToSocial: ignores the key, so the retry looks for the copy first and adopts it", async () => {
    const { sandbox, syndicator, found } = await serverOf("gotosocial");
    assert.equal(found, "gotosocial", "detected from NodeInfo: its version names no software");
    const row = ledgerRow("gts-lost");
    await loseTheAnswer(sandbox, (signal) =>
      syndicator.syndicate(note(), siteServedBy(photos.url), row.options(signal)),
    );

    const url = await syndicator.syndicate(note(), siteServedBy(photos.url), row.options());
    assert.equal(sandbox.statuses.length, 1, "exactly one copy");
    assert.equal(url, sandbox.statuses[0]?.url);
    assert.match(url, new RegExp(`^${sandbox.url}/@alice/statuses/\\d+$`));
    assert.equal(
      sandbox.requests.filter((request) => request.method === "POST" && request.path === "/api/v1/statuses")
        .length,
      1,
      "the retry did not post again",
    );
    // Sent as plain text, so an account whose default is Markdown keeps the text as written.
    assert.equal(sandbox.statuses[0]?.contentType, "text/plain");
    // Its own limits, read from its instance: 5,000 characters by default.
    assert.equal(syndicator.preview(note(), siteServedBy(photos.url)).length?.limit, 5000);
  });

  it("GoToSocial: a first send, or another post, is posted and not mistaken for an earlier copy", async () => {
    const { sandbox, syndicator } = await serverOf("gotosocial");
    const first = await syndicator.syndicate(note(), siteServedBy(photos.url), ledgerRow("a").options());
    const other = note({
      url: "https://example.org/notes/other/",
      content: { text: "Another note", html: "" },
    });
    const row = ledgerRow("b");
    // An earlier attempt of this send began posting, but nothing of it is on the server.
    await row.options().checkpoint?.(`posting:${Date.now()}`);
    const second = await syndicator.syndicate(other, siteServedBy(photos.url), row.options());
    assert.notEqual(second, first);
    assert.equal(sandbox.statuses.length, 2);
  });

  it("GoToSocial: under a host that keeps no checkpoint, every send looks for its copy first", async () => {
    const { sandbox, syndicator } = await serverOf("gotosocial");
    const bare = (signal: AbortSignal = AbortSignal.timeout(HANG_MS)) => ({ idempotencyKey: "bare", signal });
    await loseTheAnswer(sandbox, (signal) =>
      syndicator.syndicate(note(), siteServedBy(photos.url), bare(signal)),
    );
    const url = await syndicator.syndicate(note(), siteServedBy(photos.url), bare());
    assert.equal(url, sandbox.statuses[0]?.url);
    assert.equal(sandbox.statuses.length, 1, "exactly one copy");
  });

  for (const software of ["akkoma", "pleroma"] as const) {
    it(`${software}: the retry's Idempotency-Key is answered with the first status`, async () => {
      const { sandbox, syndicator, found } = await serverOf(software);
      assert.equal(found, software);
      const row = ledgerRow(`${software}-lost`);
      await loseTheAnswer(sandbox, (signal) =>
        syndicator.syndicate(note(), siteServedBy(photos.url), row.options(signal)),
      );
      const url = await syndicator.syndicate(note(), siteServedBy(photos.url), row.options());
      assert.equal(sandbox.statuses.length, 1, "exactly one copy");
      assert.equal(url, `${sandbox.url}/notice/${sandbox.statuses[0]?.id}`);
    });
  }

  it("Akkoma: the limits come from its own max_toot_chars (no /api/v2/instance)", async () => {
    const { syndicator } = await serverOf("akkoma");
    await syndicator.syndicate(note(), siteServedBy(photos.url), ledgerRow("limits").options());
    const preview = syndicator.preview(note(), siteServedBy(photos.url));
    assert.equal(preview.length?.limit, 5000);
    assert.equal(preview.length?.assumed, undefined);
  });
});
