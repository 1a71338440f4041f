// Real, decodable PNG files of any size (one grey 8-bit channel), so that tests can check what a
// syndicator reads from an image's header (its width and height) and a real server can accept it.
import { crc32, deflateSync } from "node:zlib";

/** One PNG chunk: its length, type, data and CRC. */
export function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export function pngBytes(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  // Every row: filter byte 0, then a gradient, so the image is not one flat colour.
  const rows = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows[y * (width + 1) + 1 + x] = (x + y) & 0xff;
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A colour PNG, a smooth gradient with a block of random pixels in its top left corner: noise does
 * not compress, so the block sets the file's size (3 bytes a pixel) while the image stays cheap to
 * decode and, once smaller, to encode.
 */
export function noisyPngBytes(width: number, height: number, noise = { width, height }, seed = 1): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour (RGB)
  const stride = width * 3 + 1;
  const rows = Buffer.alloc(stride * height);
  let state = seed;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = y * stride + 1 + x * 3;
      for (let c = 0; c < 3; c++) {
        state = (Math.imul(state, 1103515245) + 12345) >>> 0;
        const noisy = x < noise.width && y < noise.height;
        rows[at + c] = noisy ? state >>> 24 : (x + y * (c + 1)) & 0xff;
      }
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A decompression bomb: a valid PNG header that claims `width` × `height` pixels, a little image
 * data, and `padding` bytes of a private chunk, so that the file is over a size limit while staying
 * small beside what decoding it would take (100,000 × 100,000 pixels are 40 GB of memory).
 */
export function pngBombBytes(width: number, height: number, padding: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("prVt", Buffer.alloc(padding)),
    chunk("IDAT", deflateSync(Buffer.alloc(64 * 1024))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
