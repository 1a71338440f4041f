// An image's width and height as shown (a JPEG's EXIF orientation applied) from its headers, for the
// formats services take (JPEG, PNG, GIF, WebP). Bluesky clients need the aspect ratio to lay out a
// photo before it loads, and the downscaler must know how many pixels a photo decodes to before it
// decodes it; reading the headers needs no image library.
//
// A decoder keeps the last header it meets, this reader the first: a file whose headers disagree
// (a PNG with two IHDR chunks or whose IHDR is not first, a JPEG with several frame headers) could
// claim 100 × 100 pixels here and decode to 7000 × 7000 (decision 0044). Such a file has no size.

export interface ImageSize {
  width: number;
  height: number;
}

const ascii = (bytes: Uint8Array, start: number, length: number) =>
  String.fromCharCode(...bytes.subarray(start, start + length));

/**
 * The EXIF orientation (1 to 8) of an APP1 segment starting at `start` (after its length), or 1.
 * Phones store a portrait photo as landscape pixels with orientation 6 or 8; viewers turn it.
 */
function exifOrientation(bytes: Uint8Array, view: DataView, start: number, end: number): number {
  if (ascii(bytes, start, 6) !== "Exif\0\0") return 1;
  const tiff = start + 6;
  const little = ascii(bytes, tiff, 2) === "II";
  const ifd = tiff + view.getUint32(tiff + 4, little);
  const entries = view.getUint16(ifd, little);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > end) break;
    if (view.getUint16(entry, little) === 0x0112) return view.getUint16(entry + 8, little);
  }
  return 1;
}

/** Start of frame: every SOFn marker but DHT (C4), JPG (C8) and DAC (CC). */
const isFrameHeader = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** The offset of the next marker after entropy-coded data starting at `offset` (FF 00 is data). */
function afterScan(bytes: Uint8Array, offset: number): number {
  let at = offset;
  for (;;) {
    at = bytes.indexOf(0xff, at);
    if (at < 0 || at + 1 >= bytes.length) return bytes.length;
    const next = bytes[at + 1] ?? 0;
    // Stuffed zero, restart markers and fill bytes belong to the scan.
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7) || next === 0xff) at += next === 0xff ? 1 : 2;
    else return at;
  }
}

/**
 * Walks every marker up to the end of the image (EOI; a phone's further pictures after it are not
 * this image), scans included: one frame header, or no size.
 */
function jpegSize(bytes: Uint8Array, view: DataView): ImageSize | undefined {
  let offset = 2;
  let orientation = 1;
  let frame: ImageSize | undefined;
  while (offset + 3 < bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] ?? 0;
    // Fill bytes, and markers without a length (RST, TEM).
    if (marker === 0xff) {
      offset++;
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      offset += 2;
      continue;
    }
    if (marker === 0xd9) break; // EOI
    const length = view.getUint16(offset + 2);
    if (length < 2) return undefined;
    if (isFrameHeader(marker)) {
      if (frame) return undefined; // a second frame header: which one a decoder keeps is its choice
      if (offset + 9 > bytes.length) break;
      frame = { width: view.getUint16(offset + 7), height: view.getUint16(offset + 5) };
    }
    if (marker === 0xe1) orientation = exifOrientation(bytes, view, offset + 4, offset + 2 + length);
    offset += 2 + length;
    if (marker === 0xda) offset = afterScan(bytes, offset); // SOS: its entropy-coded data follows
  }
  if (!frame) return undefined;
  // Orientations 5 to 8 turn the photo a quarter: it is shown with width and height swapped.
  return orientation >= 5 && orientation <= 8 ? { width: frame.height, height: frame.width } : frame;
}

/**
 * Walks the chunks: IHDR first, and only once. A truncated file (a header read alone) is read as far
 * as it goes.
 */
function pngSize(bytes: Uint8Array, view: DataView): ImageSize | undefined {
  if (view.getUint32(8) !== 13 || ascii(bytes, 12, 4) !== "IHDR") return undefined;
  const size = { width: view.getUint32(16), height: view.getUint32(20) };
  let offset = 8 + 12 + 13;
  while (offset + 8 <= bytes.length) {
    const type = ascii(bytes, offset + 4, 4);
    if (type === "IHDR") return undefined;
    if (type === "IEND") break;
    offset += 12 + view.getUint32(offset);
  }
  return size;
}

function webpSize(bytes: Uint8Array, view: DataView): ImageSize | undefined {
  const chunk = ascii(bytes, 12, 4);
  if (chunk === "VP8X" && bytes.length >= 30) {
    const width = 1 + (view.getUint32(24, true) & 0xffffff);
    const height = 1 + (view.getUint32(27, true) & 0xffffff);
    return { width, height };
  }
  if (chunk === "VP8L" && bytes.length >= 25) {
    const bits = view.getUint32(21, true);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === "VP8 " && bytes.length >= 30) {
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  }
  return undefined;
}

/** The image's size, or undefined for a format we do not read or a header cut short. */
export function imageSize(bytes: Uint8Array): ImageSize | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let size: ImageSize | undefined;
  try {
    if (bytes.length >= 24 && ascii(bytes, 1, 3) === "PNG") {
      size = pngSize(bytes, view);
    } else if (bytes.length >= 10 && ascii(bytes, 0, 4) === "GIF8") {
      size = { width: view.getUint16(6, true), height: view.getUint16(8, true) };
    } else if (bytes[0] === 0xff && bytes[1] === 0xd8) {
      size = jpegSize(bytes, view);
    } else if (bytes.length >= 16 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") {
      size = webpSize(bytes, view);
    }
  } catch {
    // A header that ends early (a RangeError from the view) tells us nothing.
    return undefined;
  }
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}
