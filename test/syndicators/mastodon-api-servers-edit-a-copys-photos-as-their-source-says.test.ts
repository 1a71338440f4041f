// Decision 0060, on the other servers the Mastodon syndicator speaks to (dev/sandbox/mastodon-software.ts
// answers each edit as its source does): told the photos the copy was sent, an edit on GoToSocial,
// Akkoma and Pleroma keeps the media of a photo still there (with its new alt text), uploads a new
// one and detaches a dropped one. GoToSocial gets the edit as JSON (its form binding has no
// media_attributes[][…] fields), Akkoma and Pleroma get each changed alt text as PUT /api/v1/media/:id
// first (their edit takes no media_attributes). Pixelfed cannot attach a new photo on an edit: its
// copy keeps its photos, a kept photo's alt text follows through PUT /api/v1/media/:id, and the
// syndicator says it does not update photos (the page's "photos kept" notice then shows).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { SandboxSoftware } from "../../dev/sandbox/mastodon-software.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { jpegBytes, type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { callOptions, note, siteServedBy } from "./fixtures.ts";
import { sendTwoPhotosThenEdit } from "./mastodon-two-photos-edited.ts";

describe("the Mastodon API servers edit a copy's photos as their source says", () => {
  let photos: PhotoServer;
  const sandboxes: MastodonSandbox[] = [];
  before(async () => {
    photos = await startPhotoServer();
  });
  after(() => Promise.all([photos.close(), ...sandboxes.map((sandbox) => sandbox.close())]));

  async function serverOf(software: SandboxSoftware) {
    const sandbox = await startMastodonSandbox({ accessToken: "token", software });
    sandboxes.push(sandbox);
    const syndicator = new MastodonSyndicator({
      url: sandbox.url,
      user: "demo",
      accessToken: "token",
      software,
    });
    return { sandbox, syndicator };
  }

  /** A post with photos a and b sent, then edited to b (alt B2) and a new c. */
  async function editTwoPhotos(software: SandboxSoftware) {
    const { sandbox, syndicator } = await serverOf(software);
    const edited = await sendTwoPhotosThenEdit(sandbox, syndicator, photos, {
      folder: `/${software}`,
      editedText: "Two photos, changed",
    });
    assert.match(edited.status.text, /^Two photos, changed/);
    return { sandbox, syndicator, ...edited };
  }

  for (const software of ["gotosocial", "akkoma", "pleroma"] as const) {
    it(`${software}: the copy's media follow the post's photos, with their alt texts`, async () => {
      const { sandbox, syndicator, status, mediaA, mediaB, uploads } = await editTwoPhotos(software);
      assert.equal(syndicator.updatesPhotos, true);
      assert.equal(status.media[0]?.id, mediaB, "b keeps its media, now first");
      assert.equal(status.media[0]?.description, "B2");
      assert.notEqual(status.media[1]?.id, mediaA);
      assert.equal(status.media[1]?.description, "C");
      assert.equal(status.media.length, 2);
      assert.equal(sandbox.media.length, uploads + 1, "only c was uploaded");
      assert.equal(sandbox.media.find((m) => m.id === mediaA)?.statusId, null, "a is detached");
      const edit = sandbox.requests.find((r) => r.method === "PUT" && r.path.startsWith("/api/v1/statuses/"));
      const described = sandbox.requests.filter(
        (r) => r.method === "PUT" && r.path.startsWith("/api/v1/media/"),
      );
      if (software === "gotosocial") {
        assert.match(
          edit?.contentType ?? "",
          /^application\/json/,
          "GoToSocial reads media_attributes as JSON",
        );
        assert.equal(described.length, 0);
      } else {
        assert.match(edit?.contentType ?? "", /^application\/x-www-form-urlencoded/);
        assert.deepEqual(
          described.map((r) => r.path),
          [`/api/v1/media/${mediaB}`],
          "only b's alt text changed, set on its media before the edit",
        );
      }
    });
  }

  it("pixelfed: the copy keeps its photos; a kept photo's alt text follows", async () => {
    const { sandbox, syndicator, status, mediaA, mediaB, uploads } = await editTwoPhotos("pixelfed");
    assert.equal(syndicator.updatesPhotos, false, "the page then says the copy keeps its photos");
    assert.deepEqual(
      status.media.map((m) => [m.id, m.description]),
      [
        [mediaA, "A"],
        [mediaB, "B2"],
      ],
      "a dropped photo keeps its own alt text, b gets its new one",
    );
    assert.equal(sandbox.media.length, uploads, "nothing uploaded: Pixelfed would not attach it");
  });

  it("the sandboxes answer an edit's media as each source says", async () => {
    // GoToSocial: media not found is a 400; Mastodon's form media_attributes are not read.
    const { sandbox: gts } = await serverOf("gotosocial");
    const put = (sandbox: MastodonSandbox, id: string, body: URLSearchParams | string, type: string) =>
      fetch(`${sandbox.url}/api/v1/statuses/${id}`, {
        method: "PUT",
        headers: { authorization: "Bearer token", "content-type": type },
        body,
      });
    const form = "application/x-www-form-urlencoded";
    const gtsStatus = gts.addStatus("Mine", { username: "demo" });
    const missing = await put(
      gts,
      gtsStatus.id,
      new URLSearchParams({ status: "x", "media_ids[]": "999" }),
      form,
    );
    assert.equal(missing.status, 400);
    assert.deepEqual(await missing.json(), { error: "Bad Request: media not found: 999" });
    assert.match(missing.headers.get("content-type") ?? "", /^application\/json/);
    // Pixelfed: a status of one photo keeps it whatever the edit names.
    const { sandbox: pixelfed, syndicator } = await serverOf("pixelfed");
    const site = siteServedBy(photos.url);
    const url = await syndicator.syndicate(
      note({ content: "One photo", photo: [{ value: photos.add("/p1.jpg", jpegBytes), alt: "" }] }),
      site,
      callOptions(),
    );
    const status = pixelfed.statuses.find((s) => s.url === url);
    assert.ok(status);
    const held = status.media.map((m) => m.id);
    const answer = await put(
      pixelfed,
      status.id,
      new URLSearchParams({ status: "Changed", "media_ids[]": "" }),
      form,
    );
    assert.notEqual(answer.status, 200, "an id it cannot find is refused");
    const none = await put(pixelfed, status.id, new URLSearchParams({ status: "Changed" }), form);
    assert.equal(none.status, 200);
    assert.deepEqual(
      status.media.map((m) => m.id),
      held,
      "one photo stays",
    );
    // Mastodon changes the description of media not yet attached only.
    const { sandbox: mastodon, syndicator: onMastodon } = await serverOf("mastodon");
    const posted = await onMastodon.syndicate(
      note({ content: "Mastodon", photo: [{ value: photos.add("/m1.jpg", jpegBytes), alt: "M" }] }),
      site,
      callOptions(),
    );
    const attached = mastodon.statuses.find((s) => s.url === posted)?.media[0]?.id;
    const refused = await fetch(`${mastodon.url}/api/v1/media/${attached}`, {
      method: "PUT",
      headers: { authorization: "Bearer token", "content-type": form },
      body: new URLSearchParams({ description: "Changed" }),
    });
    assert.equal(refused.status, 404);
  });
});
