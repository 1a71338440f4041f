// Runs in a worker thread started by downscale-photo.ts, never imported by the server itself:
// decoding a large photo takes seconds of CPU and a lot of memory, which must neither hold up the
// server's requests nor outlive a time limit (the worker is simply terminated). JPEG is decoded and
// encoded by MozJPEG compiled to WebAssembly (@jsquash/jpeg): it needs about the decoded pixels'
// memory, where a JavaScript decoder (jpeg-js, Jimp's) needs ten times that, and it turns the photo
// by its EXIF orientation. PNG is decoded and every photo resized by Jimp (pure JavaScript). Neither
// has an install script; both are loaded here and nowhere else, so a server that never meets a photo
// over a target's limit never loads them.
import { readFile } from "node:fs/promises";
import { parentPort, workerData } from "node:worker_threads";
import { createJimp } from "@jimp/core";
import png from "@jimp/js-png";
import decodeJpeg, { init as initJpegDecoder } from "@jsquash/jpeg/decode.js";
import encodeJpeg, { init as initJpegEncoder } from "@jsquash/jpeg/encode.js";
import { areaResize, type Rgba } from "./area-resize.ts";
import { imageSize } from "./image-size.ts";

export interface DownscaleJob {
  bytes: Uint8Array;
  /** The largest encoded result the target accepts. */
  maxBytes: number;
  /** Checked on the header by the caller before the worker starts, and by the worker before it decodes. */
  maxPixels: number;
  /** The longest side of the first attempt (the official Bluesky app's 2000 px). */
  maxEdge: number;
  /** Below this longest side the photo is no longer worth sending: give up. */
  minEdge: number;
}

export type DownscaleReply =
  | { ok: true; bytes: Uint8Array; width: number; height: number; quality: number }
  | { ok: false; reason: string };

/** JPEG qualities tried at each size, best first; below 60 artefacts show, so the size shrinks instead. */
const qualities = [85, 75, 65] as const;
/** Each further size is this much smaller on each side. */
const shrink = 0.75;

const Jimp = createJimp({ formats: [png] });
type Image = Rgba;

/** MozJPEG's WebAssembly, compiled from the package's own file (Node cannot fetch it as a browser would). */
async function compiled(file: string): Promise<WebAssembly.Module> {
  return WebAssembly.compile(await readFile(new URL(import.meta.resolve(`@jsquash/jpeg/codec/${file}`))));
}

async function decode(bytes: Uint8Array): Promise<Image> {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return (await Jimp.fromBuffer(Buffer.from(bytes))).bitmap;
  await initJpegDecoder(await compiled("dec/mozjpeg_dec.wasm"));
  const { data, width, height } = await decodeJpeg(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer,
  );
  return { width, height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

async function encode(image: Image, quality: number): Promise<Uint8Array> {
  const { data, width, height } = image;
  const pixels = new Uint8ClampedArray(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
  const encoded = await encodeJpeg({ data: pixels, width, height, colorSpace: "srgb" }, { quality });
  return new Uint8Array(encoded);
}

/** JPEG has no transparency: transparent pixels are laid on white, as a viewer would show them. */
function flattenOnWhite(image: Image): void {
  const data = image.data;
  for (let i = 0; i < data.length; i += 4) {
    const alpha = data[i + 3] ?? 255;
    if (alpha === 255) continue;
    for (let c = 0; c < 3; c++)
      data[i + c] = Math.round(((data[i + c] ?? 0) * alpha + 255 * (255 - alpha)) / 255);
    data[i + 3] = 255;
  }
}

const longestSide = (image: Image) => Math.max(image.width, image.height);

export async function downscale(job: DownscaleJob): Promise<DownscaleReply> {
  // The caller read the header already; the worker reads it again with the same reader, so that no
  // way in decodes a file whose headers disagree or whose pixels are over the limit.
  const size = imageSize(job.bytes);
  if (!size) return { ok: false, reason: "its header cannot be read, or its headers disagree" };
  if (size.width * size.height > job.maxPixels)
    return { ok: false, reason: `its header claims ${size.width} × ${size.height} pixels, over the limit` };
  await initJpegEncoder(await compiled("enc/mozjpeg_enc.wasm"));
  const decoded = await decode(job.bytes);
  flattenOnWhite(decoded);
  const longest = longestSide(decoded);
  // Every attempt is made from the first size (so that none is the blur of a blur), and the decoded
  // photo is let go as soon as that exists.
  const base = longest > job.maxEdge ? resized(decoded, job.maxEdge) : decoded;
  // A photo already smaller than minEdge gets one try at its own size.
  const smallestEdge = Math.min(job.minEdge, longest);
  let edge = longestSide(base);
  while (edge >= smallestEdge) {
    const image = edge < longestSide(base) ? resized(base, edge) : base;
    let smallest = Number.POSITIVE_INFINITY;
    for (const quality of qualities) {
      const bytes = await encode(image, quality);
      if (bytes.length <= job.maxBytes) {
        return { ok: true, bytes, width: image.width, height: image.height, quality };
      }
      smallest = bytes.length;
      // Far over: a lower quality will not make up for it, a smaller size will.
      if (bytes.length > job.maxBytes * 2) break;
    }
    // The encoded size goes roughly with the pixel count: aim just under the limit.
    edge = Math.floor(edge * Math.min(shrink, Math.sqrt(job.maxBytes / smallest) * 0.95));
  }
  return { ok: false, reason: `it is still over the limit at ${smallestEdge} pixels on its longest side` };
}

/** `image` with its longest side `edge`, the aspect ratio kept. */
function resized(image: Image, edge: number): Image {
  const scale = edge / longestSide(image);
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  return areaResize(image, width, height);
}

if (parentPort && workerData) {
  const port = parentPort;
  downscale(workerData as DownscaleJob).then(
    (reply) => port.postMessage(reply, reply.ok ? [reply.bytes.buffer as ArrayBuffer] : []),
    (error: unknown) =>
      port.postMessage({ ok: false, reason: error instanceof Error ? error.message : String(error) }),
  );
}
