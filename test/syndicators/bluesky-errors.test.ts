import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { callOptions, note, siteServedBy } from "./fixtures.ts";

describe("Bluesky: errors carry the PDS's error and message", () => {
  let pds: FakePds;
  let photos: PhotoServer;
  before(async () => {
    pds = await startFakePds({ handle: "alice.example.com", password: "pw" });
    photos = await startPhotoServer();
  });
  after(() => Promise.all([pds.close(), photos.close()]));

  it("a wrong app password: 401 AuthenticationRequired, permanent", async () => {
    const syndicator = new BlueskySyndicator({
      handle: "alice.example.com",
      password: "wrong",
      serviceUrl: pds.url,
    });
    await assert.rejects(
      syndicator.syndicate(note(), siteServedBy(photos.url), callOptions()),
      (error: unknown) => {
        assert.ok(error instanceof SyndicationError);
        assert.equal(error.message, "Bluesky: 401 AuthenticationRequired: Invalid identifier or password");
        assert.equal(error.code, "AuthenticationRequired");
        assert.equal(error.permanent, true);
        return true;
      },
    );
  });

  it("a photo over Bluesky's 1,000,000 bytes that is no image: refused before upload, permanent", async () => {
    const big = photos.add("/big.jpg", Buffer.alloc(1_000_001, 1));
    const syndicator = new BlueskySyndicator({
      handle: "alice.example.com",
      password: "pw",
      serviceUrl: pds.url,
    });
    await assert.rejects(
      syndicator.syndicate(note({ photo: [{ url: big }] }), siteServedBy(photos.url), callOptions()),
      {
        message: `Bluesky: the photo ${big} is 1,000,001 bytes, over the 1,000,000 Bluesky accepts, and its size cannot be read from it (is it a damaged image?); upload a smaller photo`,
        permanent: true,
      },
    );
    assert.equal(pds.blobs.length, 0);
  });

  it("rate limited: 429, not permanent", async () => {
    pds.setBehaviour({
      nsid: "com.atproto.repo.createRecord",
      status: 429,
      body: { error: "RateLimitExceeded", message: "Rate Limit Exceeded" },
      times: 1,
    });
    const syndicator = new BlueskySyndicator({
      handle: "alice.example.com",
      password: "pw",
      serviceUrl: pds.url,
    });
    await assert.rejects(syndicator.syndicate(note(), siteServedBy(photos.url), callOptions()), {
      message: "Bluesky: 429 RateLimitExceeded: Rate Limit Exceeded",
      status: 429,
      permanent: false,
    });
  });

  it("a PDS that hangs is left when the signal aborts", async () => {
    pds.setBehaviour({ nsid: "com.atproto.repo.createRecord", hangMs: Number.POSITIVE_INFINITY });
    const syndicator = new BlueskySyndicator({
      handle: "alice.example.com",
      password: "pw",
      serviceUrl: pds.url,
    });
    await assert.rejects(
      syndicator.syndicate(note(), siteServedBy(photos.url), callOptions(undefined, 300)),
      {
        name: "SyndicationError",
        permanent: false,
      },
    );
    pds.setBehaviour(null);
  });
});
