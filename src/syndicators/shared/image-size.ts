// An image's width and height as shown (a JPEG's EXIF orientation applied) from its first bytes,
// for the formats services take (JPEG, PNG, GIF, WebP). Bluesky clients need the aspect ratio to lay
// out a photo before it loads; reading the header needs no image library.

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

function jpegSize(bytes: Uint8Array, view: DataView): ImageSize | undefined {
  let offset = 2;
  let orientation = 1;
  while (offset + 9 < bytes.length) {
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
    // Start of frame (every SOFn but DHT, JPG and DAC) holds the size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = view.getUint16(offset + 5);
      const width = view.getUint16(offset + 7);
      // Orientations 5 to 8 turn the photo a quarter: it is shown with width and height swapped.
      return orientation >= 5 && orientation <= 8 ? { width: height, height: width } : { width, height };
    }
    const length = view.getUint16(offset + 2);
    if (marker === 0xe1) orientation = exifOrientation(bytes, view, offset + 4, offset + 2 + length);
    offset += 2 + length;
  }
  return undefined;
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
    if (bytes.length >= 24 && ascii(bytes, 1, 3) === "PNG" && ascii(bytes, 12, 4) === "IHDR") {
      size = { width: view.getUint32(16), height: view.getUint32(20) };
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
