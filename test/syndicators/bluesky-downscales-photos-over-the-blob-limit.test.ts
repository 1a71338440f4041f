import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createJimp } from "@jimp/core";
import jpeg from "@jimp/js-jpeg";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { imageSize } from "../../src/syndicators/shared/image-size.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { type PhotoServer, startPhotoServer } from "../fakes/photo-server.ts";
import { noisyPngBytes, pngBombBytes } from "../fakes/png.ts";
import { callOptions, note, siteServedBy } from "./fixtures.ts";

interface Post {
  embed?: {
    images?: {
      alt: string;
      image: { ref: { $link: string } };
      aspectRatio?: { width: number; height: number };
    }[];
    external?: { thumb?: { ref: { $link: string } } };
  };
}

const Jimp = createJimp({ formats: [jpeg] });

describe("Bluesky: photos over the 1,000,000-byte blob limit are downscaled to fit, or refused clearly", () => {
  let pds: FakePds;
  let photos: PhotoServer;
  let syndicator: BlueskySyndicator;
  const lastPost = () => pds.records.at(-1)?.value as unknown as Post;
  const blob = (cid: string) => pds.blobs.find((candidate) => candidate.cid === cid);

  before(async () => {
    pds = await startFakePds({ handle: "alice.example.com", password: "pw" });
    photos = await startPhotoServer();
    syndicator = new BlueskySyndicator({ handle: "alice.example.com", password: "pw", serviceUrl: pds.url });
  });
  after(() => Promise.all([pds.close(), photos.close()]));

  it("re-encodes a large PNG as a JPEG under the limit, same aspect ratio, alt text kept", async () => {
    // Wider than the 2,000 px the first attempt allows, so it is made smaller as well as re-encoded.
    const original = noisyPngBytes(2600, 1000, { width: 640, height: 560 });
    assert.ok(original.length > 1_000_000, `the test photo is over the limit (${original.length} bytes)`);
    const url = photos.add("/large.png", original, "image/png");
    const site = siteServedBy(photos.url);
    await syndicator.syndicate(
      note({ photo: [{ url, alt: "Static on an old television" }] }),
      site,
      callOptions(undefined, 60_000),
    );

    const [image] = lastPost().embed?.images ?? [];
    assert.ok(image, "the post has its photo");
    assert.equal(image.alt, "Static on an old television");
    const uploaded = blob(image.image.ref.$link);
    assert.ok(uploaded, "the blob was uploaded");
    assert.equal(uploaded.mimeType, "image/jpeg");
    assert.ok(uploaded.size <= 1_000_000, `the blob fits: ${uploaded.size} bytes`);
    const decoded = await Jimp.fromBuffer(uploaded.bytes);
    assert.deepEqual(
      image.aspectRatio,
      { width: decoded.bitmap.width, height: decoded.bitmap.height },
      "aspectRatio is the uploaded image's own size",
    );
    assert.ok(
      decoded.bitmap.width <= 2000 && Math.abs(decoded.bitmap.width / decoded.bitmap.height - 2.6) < 0.01,
      `the aspect ratio is kept: ${decoded.bitmap.width} × ${decoded.bitmap.height}`,
    );
  });

  it("downscales a link card's picture over the limit too", async () => {
    const picture = noisyPngBytes(1200, 630, { width: 620, height: 560 }, 7);
    assert.ok(picture.length > 1_000_000, `the test picture is over the limit (${picture.length} bytes)`);
    const featured = photos.add("/featured.png", picture, "image/png");
    await syndicator.syndicate(note({ featured }), siteServedBy(photos.url), callOptions(undefined, 60_000));
    const thumb = lastPost().embed?.external?.thumb;
    assert.ok(thumb, "the card has its picture");
    const uploaded = blob(thumb.ref.$link);
    assert.ok(uploaded && uploaded.size <= 1_000_000, `the thumb fits: ${uploaded?.size} bytes`);
    assert.deepEqual(imageSize(uploaded.bytes), { width: 1200, height: 630 });
  });

  it("refuses a decompression bomb (1 MB claiming 100,000 × 100,000 pixels) without decoding it", async () => {
    const bytes = pngBombBytes(100_000, 100_000, 1_000_000);
    const bomb = photos.add("/bomb.png", bytes, "image/png");
    const blobsBefore = pds.blobs.length;
    await assert.rejects(
      syndicator.syndicate(note({ photo: [{ url: bomb }] }), siteServedBy(photos.url), callOptions()),
      {
        message: `Bluesky: the photo ${bomb} is ${bytes.length.toLocaleString("en")} bytes, over the 1,000,000 Bluesky accepts, and at 100,000 × 100,000 pixels it is larger than the 24 megapixels possekit downscales; upload a smaller photo`,
        permanent: true,
      },
    );
    assert.equal(pds.blobs.length, blobsBefore, "nothing was uploaded");
  });

  it("refuses an image whose data cannot be decoded, and the server goes on", async () => {
    // A real JPEG header (3000 × 2000) followed by 1.2 MB of noise instead of image data.
    const header = Buffer.from([
      ...[0xff, 0xd8], // start of image
      ...[
        0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
        0x00,
      ],
      ...[0xff, 0xc0, 0x00, 0x0b, 0x08, 0x07, 0xd0, 0x0b, 0xb8, 0x01, 0x01, 0x11, 0x00], // 3000 × 2000, grey
      ...[0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00], // start of scan
    ]);
    assert.deepEqual(imageSize(header), { width: 3000, height: 2000 });
    const broken = photos.add("/broken.jpg", Buffer.concat([header, Buffer.alloc(1_200_000, 0x5a)]));
    await assert.rejects(
      syndicator.syndicate(
        note({ photo: [{ url: broken }] }),
        siteServedBy(photos.url),
        callOptions(undefined, 60_000),
      ),
      (error: Error & { permanent?: boolean }) => {
        assert.match(
          error.message,
          /^Bluesky: the photo .* is 1,200,\d+ bytes, over the 1,000,000 Bluesky accepts, and it could not be downscaled: /,
        );
        assert.equal(error.permanent, true);
        return true;
      },
    );
    // The same syndicator, in the same process, still posts.
    await syndicator.syndicate(note(), siteServedBy(photos.url), callOptions());
  });

  it("refuses a large photo in a format it does not downscale (GIF), saying so", async () => {
    const gif = Buffer.concat([
      Buffer.from("GIF89a"),
      Buffer.from([0x20, 0x03, 0x58, 0x02]),
      Buffer.alloc(1_000_000),
    ]);
    const url = photos.add("/large.gif", gif, "image/gif");
    await assert.rejects(
      syndicator.syndicate(note({ photo: [{ url }] }), siteServedBy(photos.url), callOptions()),
      {
        message: `Bluesky: the photo ${url} is 1,000,010 bytes, over the 1,000,000 Bluesky accepts, and only JPEG and PNG photos can be downscaled (it is image/gif); upload a smaller photo`,
        permanent: true,
      },
    );
  });

  it("refuses a photo over 20,000,000 bytes before reading it all", async () => {
    const url = photos.add("/huge.png", Buffer.alloc(20_000_001), "image/png");
    await assert.rejects(
      syndicator.syndicate(note({ photo: [{ url }] }), siteServedBy(photos.url), callOptions()),
      {
        message: `Bluesky: the photo ${url} is 20000001 bytes; possekit downscales photos of up to 20000000 bytes to Bluesky's 1000000; upload a smaller photo`,
        permanent: true,
      },
    );
  });
});
