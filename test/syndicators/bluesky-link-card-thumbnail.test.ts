import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { cardImageInHtml } from "../../src/syndicators/bluesky/link-card-image.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { pngBytes } from "../fakes/png.ts";
import { callOptions, note, siteServedBy } from "./fixtures.ts";

interface External {
  uri: string;
  title: string;
  thumb?: { ref: { $link: string }; mimeType: string };
}

describe("Bluesky: the link card's picture", () => {
  let pds: FakePds;
  let site: PhotoServer;
  let syndicator: BlueskySyndicator;
  const card = () =>
    (pds.records.at(-1)?.value as { embed?: { external?: External } } | undefined)?.embed?.external;
  const page = (head: string) =>
    Buffer.from(`<!doctype html><html><head>${head}</head><body>Hi</body></html>`);

  before(async () => {
    pds = await startFakePds({ handle: "alice.example.com", password: "pw" });
    site = await startPhotoServer();
    syndicator = new BlueskySyndicator({ handle: "alice.example.com", password: "pw", serviceUrl: pds.url });
  });
  after(() => Promise.all([pds.close(), site.close()]));

  it("takes the post page's og:image (a relative URL), uploads it and sets it as the card's thumb", async () => {
    const picture = pngBytes(120, 63);
    site.add("/media/card.png", picture, "image/png");
    const url = site.add(
      "/notes/card/",
      page(`<meta property="og:image" content="/media/card.png">`),
      "text/html",
    );
    await syndicator.syndicate(note({ url }), siteServedBy(site.url), callOptions());
    const blob = pds.blobs.at(-1);
    assert.deepEqual(blob?.bytes, picture);
    assert.equal(card()?.uri, url);
    assert.equal(card()?.thumb?.ref.$link, blob?.cid);
    assert.equal(card()?.thumb?.mimeType, "image/png");
  });

  it("prefers the post's own featured image, without reading the page", async () => {
    const featured = site.add("/media/featured.png", pngBytes(40, 20), "image/png");
    const url = site.add(
      "/notes/featured/",
      page(`<meta property="og:image" content="/media/card.png">`),
      "text/html",
    );
    await syndicator.syndicate(note({ url, featured: [featured] }), siteServedBy(site.url), callOptions());
    assert.deepEqual(pds.blobs.at(-1)?.bytes, pngBytes(40, 20));
    assert.ok(!site.requests.includes("/notes/featured/"), "the page was not fetched");
    assert.equal(card()?.thumb?.ref.$link, pds.blobs.at(-1)?.cid);
  });

  it("still makes the card, without a picture, when the page has none, is missing, or names a private address", async () => {
    const bare = site.add("/notes/bare/", page("<title>No picture</title>"), "text/html");
    // Another server on this machine, not the user's site: private, so never fetched.
    const inside = await startPhotoServer();
    inside.add("/secret.png", pngBytes(10, 10), "image/png");
    const hostile = site.add(
      "/notes/hostile/",
      page(`<meta property="og:image" content="${inside.url}/secret.png">`),
      "text/html",
    );
    for (const url of [bare, `${site.url}/notes/missing/`, hostile]) {
      const blobs = pds.blobs.length;
      await syndicator.syndicate(note({ url }), siteServedBy(site.url), callOptions());
      assert.equal(card()?.uri, url);
      assert.equal(card()?.thumb, undefined, url);
      assert.equal(pds.blobs.length, blobs, "nothing was uploaded");
    }
    assert.deepEqual(inside.requests, [], "the private address was not asked");
    await inside.close();
  });

  it("reads og:image, og:image:url and twitter:image in any attribute order, with entities", () => {
    const base = "https://example.org/notes/a/";
    assert.equal(
      cardImageInHtml(`<meta content="https://cdn.example/a.jpg?x=1&amp;y=2" property="og:image" />`, base),
      "https://cdn.example/a.jpg?x=1&y=2",
    );
    assert.equal(
      cardImageInHtml(`<meta name='twitter:image' content='../b.png'>`, base),
      "https://example.org/notes/b.png",
    );
    assert.equal(
      cardImageInHtml(`<meta property="og:image:url" content="c.webp">`, base),
      "https://example.org/notes/a/c.webp",
    );
    assert.equal(cardImageInHtml(`<meta property="og:title" content="x.png">`, base), undefined);
    assert.equal(
      cardImageInHtml(`<meta property="og:image" content="javascript:alert(1)">`, base),
      undefined,
    );
  });
});
