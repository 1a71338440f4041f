// Decision 0044: the size check read a PNG's first IHDR while the decoder used its second (100 × 100
// claimed, 7000 × 7000 decoded: 1.4 MB became 1.4 GB). One reader decides the size, and an image whose
// headers disagree is refused before a byte is decoded: two IHDR chunks, IHDR not first, a JPEG with
// several frame (SOF) headers. The worker checks again before it decodes: a bomb is a failed photo.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deflateSync } from "node:zlib";
import { createJimp } from "@jimp/core";
import jpeg from "@jimp/js-jpeg";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { downscalePhoto } from "../../src/syndicators/shared/downscale-photo.ts";
import { downscale } from "../../src/syndicators/shared/downscale-worker.ts";
import { imageSize } from "../../src/syndicators/shared/image-size.ts";
import { chunk, pngBytes } from "../fakes/png.ts";

const ihdr = (width: number, height: number) => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 0; // greyscale: one byte a pixel, so the bomb's data is cheap to make
  return chunk("IHDR", header);
};
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG whose first IHDR says 100 × 100 and whose second, the one a decoder keeps, says more. */
function twoIhdrPng(width: number, height: number): Buffer {
  const rows = Buffer.alloc((width + 1) * height); // all zero: deflates to almost nothing
  return Buffer.concat([
    SIGNATURE,
    ihdr(100, 100),
    ihdr(width, height),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const Jimp = createJimp({ formats: [jpeg] });
async function realJpeg(width: number, height: number): Promise<Buffer> {
  return new Jimp({ width, height, color: 0x336699ff }).getBuffer("image/jpeg");
}

/** Where a JPEG's first SOF segment starts, and its length field. */
function firstSof(bytes: Buffer): { at: number; length: number } {
  let offset = 2;
  while (offset < bytes.length) {
    const marker = bytes[offset + 1] ?? 0;
    const length = bytes.readUInt16BE(offset + 2);
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
      return { at: offset, length };
    offset += 2 + length;
  }
  throw new Error("no SOF");
}

/** The same JPEG with a second frame header, claiming `width` × `height`, right after the first. */
function withSecondSof(bytes: Buffer, width: number, height: number, where: "after-first" | "after-scan") {
  const { at, length } = firstSof(bytes);
  const sof = Buffer.from(bytes.subarray(at, at + 2 + length));
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  const cut = where === "after-first" ? at + 2 + length : bytes.length - 2; // before EOI
  return Buffer.concat([bytes.subarray(0, cut), sof, bytes.subarray(cut)]);
}

const target = { name: "Bluesky", signal: new AbortController().signal };

describe("an image whose headers disagree is refused before it is decoded", () => {
  it("a PNG with two IHDR chunks has no size", () => {
    assert.equal(imageSize(twoIhdrPng(7000, 7000)), undefined);
    assert.deepEqual(imageSize(pngBytes(40, 30)), { width: 40, height: 30 }, "one IHDR reads as before");
  });

  it("a PNG whose IHDR is not the first chunk has no size", () => {
    const png = pngBytes(40, 30);
    const text = chunk("tEXt", Buffer.from("Comment\0hello"));
    assert.equal(imageSize(Buffer.concat([SIGNATURE, text, png.subarray(8)])), undefined);
  });

  it("a JPEG with several SOF markers has no size, wherever the second one is", async () => {
    const photo = await realJpeg(64, 48);
    assert.deepEqual(imageSize(photo), { width: 64, height: 48 });
    assert.equal(imageSize(withSecondSof(photo, 7000, 7000, "after-first")), undefined);
    assert.equal(imageSize(withSecondSof(photo, 7000, 7000, "after-scan")), undefined);
  });

  it("a JPEG followed by another (a phone's multi-picture file) reads as its first", async () => {
    const photo = await realJpeg(64, 48);
    assert.deepEqual(imageSize(Buffer.concat([photo, await realJpeg(32, 32)])), { width: 64, height: 48 });
  });

  it("downscaling refuses the two-IHDR bomb for good, saying why, without decoding it", async () => {
    const bomb = twoIhdrPng(5000, 5000);
    await assert.rejects(
      downscalePhoto(target, "https://example.org/bomb.png", bomb, "image/png", 1000),
      (error) => {
        assert.ok(error instanceof SyndicationError);
        assert.equal(error.permanent, true);
        assert.match(error.message, /its size cannot be read from it/);
        return true;
      },
    );
  });

  it("the worker checks the header itself before it decodes", async () => {
    const job = { maxBytes: 1000, maxPixels: 24_000_000, maxEdge: 2000, minEdge: 256 };
    const png = await downscale({ ...job, bytes: twoIhdrPng(5000, 5000) });
    assert.equal(png.ok, false);
    assert.match(png.ok ? "" : png.reason, /header/);
    const photo = await realJpeg(64, 48);
    const jpg = await downscale({ ...job, bytes: withSecondSof(photo, 7000, 7000, "after-first") });
    assert.equal(jpg.ok, false);
    const small = await downscale({ ...job, maxPixels: 1000, bytes: photo });
    assert.equal(small.ok, false, "more pixels than maxPixels: refused before decoding");
  });
});
