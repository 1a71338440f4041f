// Runs in a worker thread started by downscale-photo.ts, never imported by the server itself:
// decoding a large photo in JavaScript takes seconds of CPU and a lot of memory, which must neither
// hold up the server's requests nor outlive a time limit (the worker is simply terminated).
// Jimp (pure JavaScript, no install script) is loaded here and nowhere else, so a server that never
// meets a photo over a target's limit never loads it.
import { parentPort, workerData } from "node:worker_threads";
import { createJimp } from "@jimp/core";
import jpeg from "@jimp/js-jpeg";
import png from "@jimp/js-png";
import { methods as resize } from "@jimp/plugin-resize";

export interface DownscaleJob {
  bytes: Uint8Array;
  /** The largest encoded result the target accepts. */
  maxBytes: number;
  /** Checked by the caller on the header already; given to the JPEG decoder as a second guard. */
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

const Jimp = createJimp({ formats: [jpeg, png], plugins: [resize] });
type Image = Awaited<ReturnType<typeof Jimp.fromBuffer>>;

/** JPEG has no transparency: transparent pixels are laid on white, as a viewer would show them. */
function flattenOnWhite(image: Image): void {
  const data = image.bitmap.data;
  for (let i = 0; i < data.length; i += 4) {
    const alpha = data[i + 3] ?? 255;
    if (alpha === 255) continue;
    for (let c = 0; c < 3; c++)
      data[i + c] = Math.round(((data[i + c] ?? 0) * alpha + 255 * (255 - alpha)) / 255);
    data[i + 3] = 255;
  }
}

export async function downscale(job: DownscaleJob): Promise<DownscaleReply> {
  const original = await Jimp.fromBuffer(Buffer.from(job.bytes), {
    "image/jpeg": {
      maxResolutionInMP: job.maxPixels / 1_000_000,
      // RGBA output plus the decoder's own component buffers, with room to spare.
      maxMemoryUsageInMB: Math.ceil((job.maxPixels * 8) / 1_000_000),
    },
  });
  flattenOnWhite(original);
  const { width, height } = original.bitmap;
  const longest = Math.max(width, height);
  // A photo already smaller than minEdge gets one try at its own size.
  const smallestEdge = Math.min(job.minEdge, longest);
  let edge = Math.min(job.maxEdge, longest);
  while (edge >= smallestEdge) {
    // Always from the original, so that each smaller attempt is not the blur of a blur.
    const scale = edge / longest;
    const image =
      scale < 1 ? original.clone().resize({ w: Math.max(1, Math.round(width * scale)) }) : original;
    let smallest = Number.POSITIVE_INFINITY;
    for (const quality of qualities) {
      const bytes = await image.getBuffer("image/jpeg", { quality });
      if (bytes.length <= job.maxBytes) {
        // A copy of its own, so that its memory can be handed to the server rather than copied again.
        const own = new Uint8Array(bytes);
        return { ok: true, bytes: own, width: image.bitmap.width, height: image.bitmap.height, quality };
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

if (parentPort && workerData) {
  const port = parentPort;
  downscale(workerData as DownscaleJob).then(
    (reply) => port.postMessage(reply, reply.ok ? [reply.bytes.buffer as ArrayBuffer] : []),
    (error: unknown) =>
      port.postMessage({ ok: false, reason: error instanceof Error ? error.message : String(error) }),
  );
}
