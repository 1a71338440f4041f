import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { jpegBytes, type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { callOptions, note, siteServedBy } from "./fixtures.ts";

describe("Mastodon: a post with text, a link and a photo", () => {
  let sandbox: MastodonSandbox;
  let photos: PhotoServer;
  let asyncSandbox: MastodonSandbox;

  before(async () => {
    sandbox = await startMastodonSandbox({ accessToken: "secret-token", user: "alice" });
    asyncSandbox = await startMastodonSandbox({
      accessToken: "secret-token",
      user: "alice",
      mediaProcessing: "async",
    });
    photos = await startPhotoServer();
  });
  after(async () => {
    await Promise.all([sandbox.close(), asyncSandbox.close(), photos.close()]);
  });

  it("uploads the photo with its alt text, then posts the status with the Idempotency-Key", async () => {
    const syndicator = new MastodonSyndicator({
      url: sandbox.url,
      user: "alice",
      accessToken: "secret-token",
    });
    const options = callOptions("key-text-link-photo");
    const url = await syndicator.syndicate(
      note({ photo: [{ url: `${photos.url}/photo.jpg`, alt: "A red bicycle against a wall" }] }),
      siteServedBy(photos.url),
      options,
    );

    assert.equal(sandbox.statuses.length, 1);
    const status = sandbox.statuses[0];
    assert.ok(status);
    assert.equal(url, status.url);
    assert.match(url, new RegExp(`^${sandbox.url}/@alice/\\d+$`));
    assert.equal(status.text, "Hello from my site, see https://example.com/page for more");
    assert.equal(status.idempotencyKey, "key-text-link-photo");
    assert.equal(status.media.length, 1);
    assert.equal(status.media[0]?.description, "A red bicycle against a wall");
    assert.equal(status.media[0]?.mimeType, "image/jpeg");
    assert.deepEqual(status.media[0]?.bytes, jpegBytes);

    const upload = sandbox.requests.find((request) => request.path === "/api/v2/media");
    assert.ok(upload?.authorized, "the upload carried the Bearer token");
    const page = await fetch(url);
    assert.equal(page.status, 200, "the status has a page at its URL");
    assert.match(await page.text(), /Hello from my site/);
  });

  it("waits for a photo that Mastodon is still processing (202, then 206 until ready)", async () => {
    const syndicator = new MastodonSyndicator({
      url: asyncSandbox.url,
      user: "alice",
      accessToken: "secret-token",
    });
    await syndicator.syndicate(
      note({ photo: [{ url: `${photos.url}/photo.jpg`, alt: "Alt" }] }),
      siteServedBy(photos.url),
      callOptions(),
    );
    assert.equal(asyncSandbox.statuses[0]?.media.length, 1);
    assert.ok(
      asyncSandbox.requests.some(
        (request) => request.method === "GET" && request.path.startsWith("/api/v1/media/"),
      ),
    );
  });

  it("attaches at most 4 photos, in order", async () => {
    const syndicator = new MastodonSyndicator({
      url: sandbox.url,
      user: "alice",
      accessToken: "secret-token",
    });
    const photo = Array.from({ length: 6 }, (_, index) => ({
      url: `${photos.url}/photo.jpg`,
      alt: `Photo ${index + 1}`,
    }));
    await syndicator.syndicate(note({ photo }), siteServedBy(photos.url), callOptions());
    const status = sandbox.statuses.at(-1);
    assert.deepEqual(
      status?.media.map((item) => item.description),
      ["Photo 1", "Photo 2", "Photo 3", "Photo 4"],
    );
  });

  it("makes HTML-only content plain text, keeping the address of a link", async () => {
    const syndicator = new MastodonSyndicator({
      url: sandbox.url,
      user: "alice",
      accessToken: "secret-token",
    });
    await syndicator.syndicate(
      note({
        content: {
          html: '<p>Read <a href="https://example.com/a">this &amp; that</a>.</p><p>Bye<br>now</p>',
        },
      }),
      siteServedBy(photos.url),
      callOptions(),
    );
    assert.equal(sandbox.statuses.at(-1)?.text, "Read this & that (https://example.com/a).\n\nBye\nnow");
  });
});
