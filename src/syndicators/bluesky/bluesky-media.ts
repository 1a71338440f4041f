// A copy's pictures on Bluesky: the post's photos uploaded as blobs with their alt text and aspect
// ratio, downscaled when over the blob limit, and the link card's picture.
import type { Photo } from "../../contract/jf2.ts";
import type { Target } from "../shared/http.ts";
import { imageSize } from "../shared/image-size.ts";
import { type FetchedPhoto, fetchPhoto, type PhotoSources } from "../shared/photos.ts";
import type { BlobRef, BlueskyApi, BlueskySession } from "./bluesky-api.ts";
import { isSessionError } from "./bluesky-session.ts";
import { cardImageOfPage } from "./link-card-image.ts";

/** app.bsky.embed.images takes images of at most 1,000,000 bytes each. */
const maxImageBytes = 1_000_000;
/** A photo up to this size is fetched and, when over maxImageBytes, downscaled to fit. */
const maxDownloadBytes = 20_000_000;
const downloadLimitReason = `possekit downscales photos of up to ${maxDownloadBytes} bytes to Bluesky's ${maxImageBytes}; upload a smaller photo`;

/** One picture of app.bsky.embed.images. */
export interface Image {
  alt: string;
  image: BlobRef;
  aspectRatio?: { width: number; height: number };
}

/** Fetches each photo (under the outgoing-fetch rules), fits it to the blob limit and uploads it. */
export async function uploadPhotos(
  api: BlueskyApi,
  session: BlueskySession,
  target: Target,
  photos: readonly Photo[],
  sources: PhotoSources,
): Promise<Image[]> {
  const images: Image[] = [];
  for (const photo of photos) {
    const fetched = await fetchPhoto(target, photo, maxDownloadBytes, sources, downloadLimitReason);
    const fitting = await fitBlob(target, fetched);
    // Clients lay the photo out by its aspect ratio before it loads.
    const aspectRatio = imageSize(fitting.bytes);
    images.push({
      alt: photo.alt ?? "",
      image: await api.uploadBlob(session, fitting.bytes, fitting.mimeType),
      ...(aspectRatio ? { aspectRatio } : {}),
    });
  }
  return images;
}

/**
 * The link card's picture: the post's `featured` image (as the preview names it), else its page's
 * og:image, fetched under the same rules and limit as photos. A card without a picture is still a
 * card, so a page or picture that cannot be had is left out rather than failing the post.
 */
export async function cardThumb(
  api: BlueskyApi,
  session: BlueskySession,
  target: Target,
  sources: PhotoSources,
  link: string,
  featured: string | undefined,
): Promise<BlobRef | undefined> {
  try {
    const url = featured ?? (await cardImageOfPage(link, sources, target.signal));
    if (!url) return undefined;
    const image = await fitBlob(target, await fetchPhoto(target, { url }, maxDownloadBytes, sources));
    return await api.uploadBlob(session, image.bytes, image.mimeType);
  } catch (error) {
    // Out of time, or the session expired: the post cannot go on without it either.
    if (api.aborted || isSessionError(error)) throw error;
    return undefined;
  }
}

/**
 * The photo as Bluesky takes it: as it is when under the blob limit, else downscaled to fit (the
 * image library is loaded only then).
 */
async function fitBlob(
  target: Target,
  photo: FetchedPhoto,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; mimeType: string }> {
  if (photo.bytes.length <= maxImageBytes) return photo;
  const { downscalePhoto } = await import("../shared/downscale-photo.ts");
  return downscalePhoto(target, photo.url, photo.bytes, photo.mimeType, maxImageBytes);
}
