// A photo over a target's size limit (Bluesky: 1,000,000 bytes a blob) is downscaled and re-encoded
// as JPEG until it fits, as the official Bluesky app does before it uploads. The work runs in a
// worker thread (downscale-worker.ts) that is started only for such a photo: the server never loads
// the image library otherwise, its requests go on while the photo is decoded, and a photo that takes
// too long is stopped by terminating the worker.
//
// A photo is a stranger's file (any post may name any image): its width and height are read from its
// header first, and a photo with more pixels than `maxPixels` is refused before a byte of it is
// decoded, so a decompression bomb (a small file that claims to be 100,000 × 100,000 pixels) costs
// nothing. A file whose headers disagree (two PNG IHDR chunks, several JPEG frame headers) has no
// size and is refused: the decoder would keep another header than the one read (decision 0044). The worker
// reads the header again before it decodes. Its resourceLimits bound its JavaScript heap (Jimp's
// PNG decoding); the pixels' buffers and MozJPEG's WebAssembly memory are outside V8's heap, which is
// why the pixel count read from the one header the decoder will use is the real bound.
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { SyndicationError } from "../../contract/syndication-error.ts";
import type { DownscaleJob, DownscaleReply } from "./downscale-worker.ts";
import type { Target } from "./http.ts";
import { imageSize } from "./image-size.ts";

export interface DownscaledPhoto {
  bytes: Uint8Array<ArrayBuffer>;
  mimeType: "image/jpeg";
  width: number;
  height: number;
}

/**
 * 24 megapixels (6,000 × 4,000): phone photos (12 MP, or 48 MP sensors' default 12 MP) and most
 * cameras'. Decoding and encoding take about 19 bytes a pixel for the moment (a 12 MP photo measured
 * 230 MB), so about 460 MB at most: a small server must survive it.
 */
export const maxDownscalePixels = 24_000_000;
/** The longest side of the first attempt: the official Bluesky app's 2,000 px. */
const maxEdge = 2000;
/** A photo that does not fit at 256 px on its longest side is not worth sending. */
const minEdge = 256;
/** Decoding 24 megapixels takes a few seconds; far longer means something is wrong. */
const timeoutMs = 60_000;
/** The formats the worker decodes; others (GIF, WebP, HEIC) must arrive under the limit. */
const decodable = new Set(["image/jpeg", "image/png"]);

const formatted = (n: number) => n.toLocaleString("en");

/** The worker's file, as this file is run: TypeScript from a clone, or the compiled JavaScript. */
function workerFile(): URL {
  const extension = extname(fileURLToPath(import.meta.url));
  return new URL(`./downscale-worker${extension}`, import.meta.url);
}

/**
 * Starts the worker. From TypeScript sources the worker needs tsx too, which the server registered
 * for itself only; a two-line bootstrap registers it in the worker, then loads the worker's file.
 */
function startWorker(job: DownscaleJob): Worker {
  const file = workerFile();
  const limits = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 64 };
  if (!file.pathname.endsWith(".ts")) return new Worker(file, { workerData: job, resourceLimits: limits });
  const bootstrap = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(file.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: job, resourceLimits: limits });
}

function runWorker(job: DownscaleJob, signal: AbortSignal): Promise<DownscaleReply> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(job);
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      outcome();
    };
    const onAbort = () => finish(() => reject(signal.reason));
    const timer = setTimeout(
      () => finish(() => resolve({ ok: false, reason: `it took over ${timeoutMs / 1000} s` })),
      timeoutMs,
    );
    signal.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (reply: DownscaleReply) => finish(() => resolve(reply)));
    // Out of memory (the worker's own heap limit) or a crash of the decoder: the server lives on.
    worker.once("error", (error) => finish(() => resolve({ ok: false, reason: error.message })));
    worker.once("exit", (code) =>
      finish(() => resolve({ ok: false, reason: `the decoder stopped (${code})` })),
    );
  });
}

/**
 * The photo at `url`, made to fit `maxBytes`: a JPEG of the same aspect ratio, as large and as good
 * as fits. Refused for good (with the reason, and what the user can do) when it cannot be.
 */
export async function downscalePhoto(
  target: Target,
  url: string,
  bytes: Uint8Array,
  mimeType: string,
  maxBytes: number,
): Promise<DownscaledPhoto> {
  const refuse = (why: string) =>
    new SyndicationError(
      `${target.name}: the photo ${url} is ${formatted(bytes.length)} bytes, over the ${formatted(maxBytes)} ${target.name} accepts, and ${why}; upload a smaller photo`,
      { permanent: true },
    );
  if (!decodable.has(mimeType))
    throw refuse(`only JPEG and PNG photos can be downscaled (it is ${mimeType})`);
  const size = imageSize(bytes);
  if (!size) throw refuse("its size cannot be read from it (is it a damaged image?)");
  const pixels = size.width * size.height;
  if (pixels > maxDownscalePixels) {
    throw refuse(
      `at ${formatted(size.width)} × ${formatted(size.height)} pixels it is larger than the ${maxDownscalePixels / 1_000_000} megapixels possekit downscales`,
    );
  }
  const job: DownscaleJob = { bytes, maxBytes, maxPixels: maxDownscalePixels, maxEdge, minEdge };
  const reply = await runWorker(job, target.signal);
  if (!reply.ok) throw refuse(`it could not be downscaled: ${reply.reason}`);
  return {
    bytes: new Uint8Array(reply.bytes),
    mimeType: "image/jpeg",
    width: reply.width,
    height: reply.height,
  };
}
