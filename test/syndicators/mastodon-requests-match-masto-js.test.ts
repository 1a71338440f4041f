// Our Mastodon syndicator and masto.js (the maintained client most Mastodon apps in JavaScript use)
// post the same status with a photo through a recording proxy: the requests must say the same
// things — same endpoints, fields, values, files, token and Idempotency-Key — whatever encoding
// each chose. If ours drifted from what Mastodon's clients send, this would show it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createRestAPIClient } from "masto";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { jpegBytes, type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { type RecordedRequest, type RecordingProxy, startRecordingProxy } from "../fakes/recording-proxy.ts";
import { HANG_MS, note, siteServedBy } from "./fixtures.ts";

const writes = (requests: RecordedRequest[]) => requests.filter((request) => request.method !== "GET");

/** What a request says, without what differs by nature between two sends (ids, encoding). */
function meaning(request: RecordedRequest) {
  const { media_ids: mediaIds, ...fields } = request.fields;
  return {
    method: request.method,
    path: request.path,
    fields,
    mediaCount: mediaIds?.length ?? 0,
    files: request.files,
    authorization: request.authorization,
    idempotencyKey: request.idempotencyKey,
  };
}

describe("Mastodon: our requests say what masto.js says", () => {
  let sandbox: MastodonSandbox;
  let proxy: RecordingProxy;
  let photos: PhotoServer;
  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token" });
    proxy = await startRecordingProxy(sandbox.url);
    photos = await startPhotoServer();
  });
  after(() => Promise.all([sandbox.close(), proxy.close(), photos.close()]));

  it("a status with a photo, alt text, visibility, language and an Idempotency-Key", async () => {
    const syndicator = new MastodonSyndicator({
      url: proxy.url,
      user: "demo",
      accessToken: "token",
      visibility: "unlisted",
      language: "en",
    });
    const key = "same-key-for-both";
    await syndicator.syndicate(
      note({ content: "Hello #IndieWeb", photo: [{ url: `${photos.url}/photo.jpg`, alt: "A red door" }] }),
      siteServedBy(photos.url),
      { idempotencyKey: key, signal: AbortSignal.timeout(HANG_MS) },
    );
    const ours = writes(proxy.requests);
    const sentText = ours.find((request) => request.path === "/api/v1/statuses")?.fields.status?.[0];
    assert.ok(sentText);
    proxy.requests.length = 0;

    const masto = createRestAPIClient({ url: proxy.url, accessToken: "token" });
    const media = await masto.v2.media.create({
      file: new Blob([jpegBytes], { type: "image/jpeg" }),
      description: "A red door",
    });
    await masto.v1.statuses.create(
      { status: sentText, visibility: "unlisted", language: "en", mediaIds: [media.id] },
      { requestInit: { headers: { "Idempotency-Key": key } } },
    );
    const theirs = writes(proxy.requests);

    assert.deepEqual(ours.map(meaning), theirs.map(meaning));
    assert.equal(sandbox.statuses.length, 1, "the same key made one status, whoever sent it");
  });
});
