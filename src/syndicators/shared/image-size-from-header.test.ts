import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pngBytes } from "../../../test/fakes/png.ts";
import { imageSize } from "./image-size.ts";

const u16be = (n: number) => [n >> 8, n & 0xff];
const u16le = (n: number) => [n & 0xff, n >> 8];
const u24le = (n: number) => [n & 0xff, (n >> 8) & 0xff, n >> 16];

/** A JPEG's first segments: SOI, an APP0 (JFIF) segment to skip, then a baseline SOF0 with the size. */
function jpegHeader(width: number, height: number, sof = 0xc0): Buffer {
  const app0 = [0xff, 0xe0, 0x00, 0x10, ...Buffer.from("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const frame = [
    0xff,
    sof,
    0x00,
    0x11,
    8,
    ...u16be(height),
    ...u16be(width),
    3,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ];
  return Buffer.from([0xff, 0xd8, ...app0, ...frame]);
}

/** An APP1 segment with EXIF whose first IFD holds only the orientation tag (0x0112). */
function exifSegment(orientation: number, little: boolean): number[] {
  const u16 = little ? u16le : u16be;
  const u32 = (n: number) => (little ? [n & 0xff, n >> 8, 0, 0] : [0, 0, n >> 8, n & 0xff]);
  const tiff = [...Buffer.from(little ? "II" : "MM"), ...u16(42), ...u32(8)];
  const ifd = [...u16(1), ...u16(0x0112), ...u16(3), ...u32(1), ...u16(orientation), 0, 0, ...u32(0)];
  const body = [...Buffer.from("Exif\0\0"), ...tiff, ...ifd];
  return [0xff, 0xe1, ...u16be(body.length + 2), ...body];
}

/** A JPEG header as a phone writes it: landscape pixels, and the EXIF orientation to show them by. */
function phoneJpegHeader(width: number, height: number, orientation: number, little = true): Buffer {
  const plain = jpegHeader(width, height);
  return Buffer.concat([
    plain.subarray(0, 2),
    Buffer.from(exifSegment(orientation, little)),
    plain.subarray(2),
  ]);
}

describe("image size read from the header bytes", () => {
  it("applies a JPEG's EXIF orientation: a phone's portrait photo (6 or 8) is taller than wide", () => {
    assert.deepEqual(imageSize(phoneJpegHeader(4032, 3024, 6)), { width: 3024, height: 4032 });
    assert.deepEqual(imageSize(phoneJpegHeader(4032, 3024, 8, false)), { width: 3024, height: 4032 });
    assert.deepEqual(imageSize(phoneJpegHeader(4032, 3024, 3)), { width: 4032, height: 3024 });
    assert.deepEqual(imageSize(phoneJpegHeader(4032, 3024, 1, false)), { width: 4032, height: 3024 });
  });

  it("reads PNG, JPEG (baseline and progressive), GIF and the three WebP kinds", () => {
    assert.deepEqual(imageSize(pngBytes(640, 427)), { width: 640, height: 427 });
    assert.deepEqual(imageSize(jpegHeader(4032, 3024)), { width: 4032, height: 3024 });
    assert.deepEqual(imageSize(jpegHeader(1200, 1600, 0xc2)), { width: 1200, height: 1600 });
    const gif = Buffer.from([...Buffer.from("GIF89a"), ...u16le(320), ...u16le(240), 0, 0, 0]);
    assert.deepEqual(imageSize(gif), { width: 320, height: 240 });
    const riff = (chunk: string, body: number[]) =>
      Buffer.from([
        ...Buffer.from("RIFF"),
        0,
        0,
        0,
        0,
        ...Buffer.from("WEBP"),
        ...Buffer.from(chunk),
        ...body,
      ]);
    const vp8x = riff("VP8X", [10, 0, 0, 0, 0, 0, 0, 0, ...u24le(1919), ...u24le(1079), 0]);
    assert.deepEqual(imageSize(vp8x), { width: 1920, height: 1080 });
    const bits = (800 - 1) | ((600 - 1) << 14);
    const vp8l = riff("VP8L", [
      0,
      0,
      0,
      0,
      0x2f,
      bits & 0xff,
      (bits >> 8) & 0xff,
      (bits >> 16) & 0xff,
      bits >>> 24,
    ]);
    assert.deepEqual(imageSize(vp8l), { width: 800, height: 600 });
    const vp8 = riff("VP8 ", [0, 0, 0, 0, 0, 0, 0, 0x9d, 0x01, 0x2a, ...u16le(500), ...u16le(375)]);
    assert.deepEqual(imageSize(vp8), { width: 500, height: 375 });
  });

  it("gives no size for unknown formats, cut headers and zero sizes", () => {
    assert.equal(imageSize(Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>")), undefined);
    assert.equal(imageSize(jpegHeader(100, 100).subarray(0, 12)), undefined);
    assert.equal(imageSize(pngBytes(10, 10).subarray(0, 20)), undefined);
    assert.equal(imageSize(jpegHeader(0, 100)), undefined);
    assert.equal(imageSize(new Uint8Array()), undefined);
  });
});
