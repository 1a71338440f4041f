import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { callOptions, note, siteServedBy } from "./fixtures.ts";

async function failure(promise: Promise<unknown>): Promise<SyndicationError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SyndicationError, `expected a SyndicationError, got ${String(error)}`);
    return error;
  }
  assert.fail("the call succeeded");
}

describe("Mastodon: errors carry the target's message and status", () => {
  let sandbox: MastodonSandbox;
  let photos: PhotoServer;
  let syndicator: MastodonSyndicator;

  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token", characterLimit: 20 });
    photos = await startPhotoServer();
    // The limit the syndicator believes is larger than the instance's, so the instance refuses.
    syndicator = new MastodonSyndicator({
      url: sandbox.url,
      user: "demo",
      accessToken: "token",
      characterLimit: 500,
    });
  });
  beforeEach(() => sandbox.clearBehaviour());
  after(() => Promise.all([sandbox.close(), photos.close()]));

  it("422 from the instance: Mastodon's own words, permanent", async () => {
    const error = await failure(syndicator.syndicate(note(), siteServedBy(photos.url), callOptions()));
    assert.equal(error.message, "Mastodon: 422 Validation failed: Text character limit of 20 exceeded");
    assert.equal(error.status, 422);
    assert.equal(error.permanent, true);
  });

  it("401 for a token the instance does not know: permanent", async () => {
    const wrong = new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "not-the-token" });
    const error = await failure(
      wrong.syndicate(note({ content: "Short" }), siteServedBy(photos.url), callOptions()),
    );
    assert.equal(error.message, "Mastodon: 401 The access token is invalid");
    assert.equal(error.status, 401);
    assert.equal(error.permanent, true);
  });

  it("503 and 429 pass with time: not permanent, with Retry-After when given", async () => {
    sandbox.setFailure(503, "Service Unavailable");
    const unavailable = await failure(
      syndicator.syndicate(note({ content: "Short" }), siteServedBy(photos.url), callOptions()),
    );
    assert.equal(unavailable.message, "Mastodon: 503 Service Unavailable");
    assert.equal(unavailable.permanent, false);

    sandbox.setFailure(429, "Too many requests");
    const limited = await failure(
      syndicator.syndicate(note({ content: "Short" }), siteServedBy(photos.url), callOptions()),
    );
    assert.equal(limited.status, 429);
    assert.equal(limited.permanent, false);
  });

  it("a refused upload stops before any status is posted", async () => {
    sandbox.setFailure(422, "Validation failed: File content type is invalid", "POST /api/v2/media");
    const before = sandbox.statuses.length;
    const error = await failure(
      syndicator.syndicate(
        note({ content: "Short", photo: [{ url: `${photos.url}/photo.jpg` }] }),
        siteServedBy(photos.url),
        callOptions(),
      ),
    );
    assert.equal(error.message, "Mastodon: 422 Validation failed: File content type is invalid");
    assert.equal(sandbox.statuses.length, before);
  });

  it("a photo missing from the site is worth retrying (the deploy may still be running)", async () => {
    const error = await failure(
      syndicator.syndicate(
        note({ content: "Short", photo: [{ url: `${photos.url}/missing.jpg` }] }),
        siteServedBy(photos.url),
        callOptions(),
      ),
    );
    assert.match(
      error.message,
      /^Mastodon: could not fetch the photo http:\/\/127\.0\.0\.1:\d+\/missing\.jpg: 404/,
    );
    assert.equal(error.permanent, false);
  });

  it("a photo that is not an image is refused for good", async () => {
    const error = await failure(
      syndicator.syndicate(
        note({ content: "Short", photo: [{ url: `${photos.url}/page.html` }] }),
        siteServedBy(photos.url),
        callOptions(),
      ),
    );
    assert.match(error.message, /is not an image/);
    assert.equal(error.permanent, true);
  });

  it("an instance that cannot be reached: not permanent, says where", async () => {
    const closed = await startMastodonSandbox({ accessToken: "token" });
    await closed.close();
    const gone = new MastodonSyndicator({ url: closed.url, user: "demo", accessToken: "token" });
    const error = await failure(gone.syndicate(note(), siteServedBy(photos.url), callOptions()));
    assert.match(error.message, new RegExp(`^Mastodon: could not reach ${closed.url}`));
    assert.equal(error.status, undefined);
    assert.equal(error.permanent, false);
  });
});
