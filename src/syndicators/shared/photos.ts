// Targets want the photo's bytes, not its address: each photo is fetched from the site first, under
// the outgoing-fetch rules (src/net/safe-fetch.ts), since the address comes from the post.

import type { Photo } from "../../contract/jf2.ts";
import type { MediaLibrary } from "../../contract/media.ts";
import { SyndicationError } from "../../contract/syndication-error.ts";
import { OutgoingFetchError, type OutgoingFetchPolicy, safeFetch } from "../../net/safe-fetch.ts";
import { type Target, unreachable } from "./http.ts";

/** Where photos come from: the server's own uploads (read from storage), else the web, under the rules. */
export interface PhotoSources extends OutgoingFetchPolicy {
  media?: Pick<MediaLibrary, "read"> | undefined;
}

export interface FetchedPhoto extends Photo {
  bytes: Uint8Array<ArrayBuffer>;
  mimeType: string;
  filename: string;
}

/** Longest a single photo may take to arrive, within the target's own timeout. */
const photoTimeoutMs = 30_000;

function filenameOf(url: string): string {
  const last = new URL(url).pathname.split("/").filter(Boolean).pop();
  return last ? decodeURIComponent(last) : "photo";
}

/**
 * Fetches a photo of the post. A missing photo is not a permanent failure: on a static site the
 * photo often appears a little after the post (the deploy is still running), so a retry can work.
 * A photo on a private address is: it waits for the user (or for `fetch.allowPrivate`).
 */
export async function fetchPhoto(
  target: Target,
  photo: Photo,
  maxBytes: number,
  policy: PhotoSources,
  /** Why `maxBytes` is the limit, when it is not simply what the target accepts. */
  limitReason = `${target.name} accepts photos up to ${maxBytes} bytes`,
): Promise<FetchedPhoto> {
  const tooLarge = (bytes: number | undefined) =>
    new SyndicationError(
      `${target.name}: the photo ${photo.url} is ${bytes === undefined ? `over ${maxBytes}` : bytes} bytes; ${limitReason}`,
      { permanent: true },
    );
  // A photo uploaded to this server is read from its folder: no HTTP request to ourselves.
  const stored = await policy.media?.read(photo.url);
  if (stored) {
    if (stored.bytes.length > maxBytes) throw tooLarge(stored.bytes.length);
    if (!stored.mimeType.startsWith("image/"))
      throw new SyndicationError(
        `${target.name}: the photo ${photo.url} is not an image (${stored.mimeType})`,
        {
          permanent: true,
        },
      );
    return { ...photo, ...stored };
  }
  let response: Awaited<ReturnType<typeof safeFetch>>;
  try {
    response = await safeFetch(photo.url, {
      policy,
      maxBytes,
      timeoutMs: photoTimeoutMs,
      signal: target.signal,
      headers: { accept: "image/*" },
    });
  } catch (error) {
    if (error instanceof OutgoingFetchError) {
      if (error.kind === "too-large") throw tooLarge(error.declaredBytes);
      const permanent = error.kind === "refused" || error.kind === "invalid-url";
      throw new SyndicationError(`${target.name}: could not fetch the photo ${error.message}`, {
        permanent,
        cause: error,
      });
    }
    throw unreachable(target, photo.url, error, false);
  }
  if (!response.ok) {
    throw new SyndicationError(
      `${target.name}: could not fetch the photo ${photo.url}: ${response.status} ${response.statusText}`.trimEnd(),
      { permanent: false },
    );
  }
  const mimeType = (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (!mimeType.startsWith("image/")) {
    throw new SyndicationError(
      `${target.name}: the photo ${photo.url} is not an image (its server says "${mimeType || "no type"}")`,
      { permanent: true },
    );
  }
  return { ...photo, bytes: response.body, mimeType, filename: filenameOf(photo.url) };
}
