import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { tidPattern } from "../../src/syndicators/bluesky/record-key.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { jpegBytes, type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { callOptions, note, siteServedBy } from "./fixtures.ts";

describe("Bluesky: a post with text, a link and a photo", () => {
  let pds: FakePds;
  let photos: PhotoServer;
  let syndicator: BlueskySyndicator;

  before(async () => {
    pds = await startFakePds({ handle: "alice.example.com", password: "app-password" });
    photos = await startPhotoServer();
    syndicator = new BlueskySyndicator({
      handle: "alice.example.com",
      password: "app-password",
      serviceUrl: pds.url,
    });
  });
  after(() => Promise.all([pds.close(), photos.close()]));

  it("signs in, uploads the photo as a blob and creates an app.bsky.feed.post with the image and its alt", async () => {
    const url = await syndicator.syndicate(
      note({ photo: [{ url: `${photos.url}/photo.jpg`, alt: "A red bicycle" }] }),
      siteServedBy(photos.url),
      callOptions("bluesky-photo"),
    );
    assert.equal(pds.records.length, 1);
    const record = pds.records[0];
    assert.ok(record);
    assert.match(record.rkey, tidPattern, "the record key is a TID");
    // The DID, which stays when the handle changes.
    assert.equal(url, `https://bsky.app/profile/${pds.did}/post/${record.rkey}`);
    assert.equal(record.collection, "app.bsky.feed.post");

    const value = record.value as {
      $type: string;
      text: string;
      createdAt: string;
      facets: { index: { byteStart: number; byteEnd: number }; features: { $type: string; uri: string }[] }[];
      embed: {
        $type: string;
        images: { alt: string; image: { ref: { $link: string }; mimeType: string } }[];
      };
    };
    assert.equal(value.$type, "app.bsky.feed.post");
    assert.equal(value.text, "Hello from my site, see https://example.com/page for more");
    assert.ok(!Number.isNaN(Date.parse(value.createdAt)));
    assert.deepEqual(value.facets, [
      {
        index: { byteStart: 24, byteEnd: 48 },
        features: [{ $type: "app.bsky.richtext.facet#link", uri: "https://example.com/page" }],
      },
    ]);
    assert.equal(value.embed.$type, "app.bsky.embed.images");
    assert.equal(value.embed.images[0]?.alt, "A red bicycle");
    assert.equal(value.embed.images[0]?.image.ref.$link, pds.blobs[0]?.cid);
    assert.deepEqual(pds.blobs[0]?.bytes, jpegBytes);
    assert.equal(pds.blobs[0]?.mimeType, "image/jpeg");
  });

  it("without photos, adds a link card for the post", async () => {
    await syndicator.syndicate(
      note({ name: "A title", summary: "What it is about" }),
      siteServedBy(photos.url),
      callOptions(),
    );
    const value = pds.records.at(-1)?.value as { text: string; embed: unknown };
    assert.equal(value.text, "A title");
    assert.deepEqual(value.embed, {
      $type: "app.bsky.embed.external",
      external: {
        uri: "https://example.org/notes/hello/",
        title: "A title",
        description: "What it is about",
      },
    });
  });

  it("signs in once for many posts", async () => {
    await syndicator.syndicate(note(), siteServedBy(photos.url), callOptions());
    await syndicator.syndicate(note(), siteServedBy(photos.url), callOptions());
    assert.equal(pds.sessions.length, 1);
  });

  it("renews an expired session with its refresh token, without signing in again", async () => {
    pds.expireSessions();
    const before = pds.records.length;
    await syndicator.syndicate(note(), siteServedBy(photos.url), callOptions());
    assert.equal(pds.sessions.length, 1, "no new sign-in");
    assert.equal(pds.refreshes.length, 1);
    assert.equal(pds.records.length, before + 1);
    await syndicator.syndicate(note(), siteServedBy(photos.url), callOptions());
    assert.equal(pds.refreshes.length, 1, "the refreshed session serves the next post");
  });

  it("signs in again when the refresh token has expired too", async () => {
    pds.expireSessions({ refresh: true });
    const before = pds.records.length;
    await syndicator.syndicate(note(), siteServedBy(photos.url), callOptions());
    assert.equal(pds.sessions.length, 2);
    assert.equal(pds.records.length, before + 1);
  });
});
