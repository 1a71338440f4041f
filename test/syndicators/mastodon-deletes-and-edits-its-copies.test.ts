// Decision 0028, the Mastodon side: a status is deleted (a second delete finds it gone: 404 counts as
// deleted), a favourite and a boost are undone, a 429 on deletions says when to try again, and an
// edit keeps the status's media while a like has nothing to edit. Decision 0060: told the photos the
// copy was sent, an edit keeps the media of a photo still there, uploads a new one first and leaves
// out one the post dropped; an upload still processing is waited for (the sandbox, as Mastodon's
// UpdateStatusService, refuses to attach it with a 422).
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { jpegBytes, type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { callOptions, changeOptions, note, siteServedBy } from "./fixtures.ts";
import { sendTwoPhotosThenEdit } from "./mastodon-two-photos-edited.ts";

describe("Mastodon deletes and edits its copies", () => {
  let sandbox: MastodonSandbox;
  let photos: PhotoServer;
  let syndicator: MastodonSyndicator;

  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "token" });
    photos = await startPhotoServer();
    syndicator = new MastodonSyndicator({ url: sandbox.url, user: "demo", accessToken: "token" });
  });
  beforeEach(() => sandbox.clearBehaviour());
  after(() => Promise.all([sandbox.close(), photos.close()]));

  it("deletes the status; deleting it again finds it gone (404) and counts it deleted", async () => {
    const site = siteServedBy(photos.url);
    const post = note({ content: "Gone soon" });
    const url = await syndicator.syndicate(post, site, callOptions());
    await syndicator.delete(post, site, changeOptions(url));
    assert.ok(sandbox.statuses[0]?.deletedAt);
    await syndicator.delete(post, site, changeOptions(url));
    const deletes = sandbox.requests.filter((r) => r.method === "DELETE");
    assert.equal(deletes.length, 2, "the second delete was made, and answered 404");
  });

  it("undoes a favourite and a boost", async () => {
    const site = siteServedBy(photos.url);
    const liked = sandbox.addStatus("Worth a like");
    const boosted = sandbox.addStatus("Worth a boost");
    const like = note({ "like-of": [liked.url] });
    const boost = note({ "repost-of": [boosted.url] });
    const likeCopy = await syndicator.syndicate(like, site, callOptions());
    const boostCopy = await syndicator.syndicate(boost, site, callOptions());
    assert.deepEqual(sandbox.favourites, [liked.id]);
    assert.equal(sandbox.reblogs.length, 1);
    await syndicator.delete(like, site, changeOptions(likeCopy));
    await syndicator.delete(boost, site, changeOptions(boostCopy));
    assert.deepEqual(sandbox.favourites, []);
    assert.equal(sandbox.reblogs.length, 0);
    assert.equal(liked.deletedAt, null, "someone else's status is never deleted");
    // A like has nothing to edit.
    const before = sandbox.requests.length;
    await syndicator.update(note({ "like-of": [liked.url] }), site, changeOptions(likeCopy));
    assert.equal(sandbox.requests.length, before);
  });

  it("a 429 on deletions is not permanent and says when to try again", async () => {
    const site = siteServedBy(photos.url);
    const post = note({ content: "Rate limited" });
    const url = await syndicator.syndicate(post, site, callOptions());
    const reset = new Date(Date.now() + 30 * 60_000);
    sandbox.rateLimit(reset, "DELETE /api/v1/statuses/:id", 1);
    const error = await syndicator.delete(post, site, changeOptions(url)).then(
      () => assert.fail("the delete went through"),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof SyndicationError);
    assert.equal(error.status, 429);
    assert.equal(error.permanent, false);
    assert.ok(
      Math.abs((error.retryAfterSeconds ?? 0) - 30 * 60) < 5,
      `waits until the reset (${error.retryAfterSeconds} s)`,
    );
    await syndicator.delete(post, site, changeOptions(url));
    assert.ok(sandbox.statuses.find((status) => status.url === url)?.deletedAt);
  });

  it("an edit keeps the media and sets the alt text photo by photo", async () => {
    const site = siteServedBy(photos.url);
    const photo = [{ value: `${photos.url}/photo.jpg`, alt: "" }];
    const url = await syndicator.syndicate(note({ content: "With a photo", photo }), site, callOptions());
    const status = sandbox.statuses.find((s) => s.url === url);
    const mediaId = status?.media[0]?.id;
    assert.ok(mediaId);
    await syndicator.update(
      note({ content: "With a photo, fixed", photo: [{ value: `${photos.url}/photo.jpg`, alt: "A heron" }] }),
      site,
      changeOptions(url),
    );
    assert.match(status?.text ?? "", /^With a photo, fixed/);
    assert.deepEqual(
      status?.media.map((m) => [m.id, m.description]),
      [[mediaId, "A heron"]],
    );
    assert.ok(status?.editedAt);
  });

  it("an edit told the photos sent keeps, adds and drops media as the post's photos say", async () => {
    const { status, mediaA, mediaB, uploads } = await sendTwoPhotosThenEdit(sandbox, syndicator, photos);
    assert.equal(status.media[0]?.id, mediaB, "b keeps its media, now first");
    assert.equal(status.media[0]?.description, "B2");
    assert.notEqual(status.media[1]?.id, mediaA);
    assert.equal(status.media[1]?.description, "C");
    assert.equal(sandbox.media.length, uploads + 1, "only c was uploaded");
    assert.equal(sandbox.media.find((m) => m.id === mediaA)?.statusId, null, "a is detached");
  });

  it("waits for a new photo to be processed before the edit attaches it", async () => {
    const slow = await startMastodonSandbox({ accessToken: "token", mediaProcessing: "async" });
    try {
      const slowSyndicator = new MastodonSyndicator({ url: slow.url, user: "demo", accessToken: "token" });
      const site = siteServedBy(photos.url);
      const url = await slowSyndicator.syndicate(note({ content: "No photo yet" }), site, callOptions());
      await slowSyndicator.update(
        note({ content: "No photo yet", photo: [{ value: photos.add("/new.jpg", jpegBytes), alt: "New" }] }),
        site,
        { ...changeOptions(url), sentPhotos: [] },
      );
      const status = slow.statuses.find((s) => s.url === url);
      assert.deepEqual(
        status?.media.map((m) => m.description),
        ["New"],
      );
      // What the sandbox answers an edit naming an upload still processing, as Mastodon does.
      const upload = new FormData();
      upload.append(
        "file",
        new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xd9])], { type: "image/jpeg" }),
        "x.jpg",
      );
      const pending = await fetch(`${slow.url}/api/v2/media`, {
        method: "POST",
        headers: { authorization: "Bearer token" },
        body: upload,
      });
      const { id } = (await pending.json()) as { id: string };
      const edit = await fetch(`${slow.url}/api/v1/statuses/${status?.id}`, {
        method: "PUT",
        headers: { authorization: "Bearer token", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ status: "Edited", "media_ids[]": id }),
      });
      assert.equal(edit.status, 422);
      assert.match(((await edit.json()) as { error: string }).error, /not finished processing/);
    } finally {
      await slow.close();
    }
  });
});
