// Targets want the photo's bytes, not its address: each photo is fetched from the site first.
import { SyndicationError } from "../syndication-error.ts";
import { send, type Target, unreachable } from "./http.ts";
import type { Photo } from "./jf2.ts";

export interface FetchedPhoto extends Photo {
  bytes: Uint8Array<ArrayBuffer>;
  mimeType: string;
  filename: string;
}

function filenameOf(url: string): string {
  const last = new URL(url).pathname.split("/").filter(Boolean).pop();
  return last ? decodeURIComponent(last) : "photo";
}

/**
 * Fetches a photo of the post. A missing photo is not a permanent failure: on a static site the
 * photo often appears a little after the post (the deploy is still running), so a retry can work.
 */
export async function fetchPhoto(target: Target, photo: Photo, maxBytes: number): Promise<FetchedPhoto> {
  const response = await send(target, photo.url, { headers: { accept: "image/*" } });
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new SyndicationError(
      `${target.name}: could not fetch the photo ${photo.url}: ${response.status} ${response.statusText}`.trimEnd(),
      { permanent: false },
    );
  }
  const mimeType = (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (!mimeType.startsWith("image/")) {
    await response.body?.cancel().catch(() => {});
    throw new SyndicationError(
      `${target.name}: the photo ${photo.url} is not an image (its server says "${mimeType || "no type"}")`,
      { permanent: true },
    );
  }
  const tooLarge = (size: number) =>
    new SyndicationError(
      `${target.name}: the photo ${photo.url} is ${size} bytes; ${target.name} accepts photos up to ${maxBytes} bytes`,
      { permanent: true },
    );
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(declared);
  }
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw unreachable(target, photo.url, error);
  }
  if (bytes.length > maxBytes) throw tooLarge(bytes.length);
  return { ...photo, bytes, mimeType, filename: filenameOf(photo.url) };
}
