// The kinds of file the server keeps, told by their bytes (magic numbers, read by file-type), never
// by the name or Content-Type the client gave: a PHP script sent as image/jpeg is still a script.
// Text formats (SVG, HTML) have no magic number and are refused, so no upload can carry a script.

import type { MediaKind, MediaType } from "../../contract/media.ts";

export type { MediaKind, MediaType };

/** Keyed by file-type's extension. */
const KNOWN: Record<string, MediaType> = Object.fromEntries(
  (
    [
      ["jpg", "image/jpeg", "photo"],
      ["png", "image/png", "photo"],
      ["gif", "image/gif", "photo"],
      ["webp", "image/webp", "photo"],
      ["avif", "image/avif", "photo"],
      ["heic", "image/heic", "photo"],
      ["mp4", "video/mp4", "video"],
      ["mov", "video/quicktime", "video"],
      ["webm", "video/webm", "video"],
      ["mp3", "audio/mpeg", "audio"],
      ["m4a", "audio/mp4", "audio"],
      ["ogg", "audio/ogg", "audio"],
      ["opus", "audio/ogg", "audio"],
      ["flac", "audio/flac", "audio"],
      ["wav", "audio/wav", "audio"],
    ] as const
  ).map(([ext, mime, kind]) => [ext, { ext, mime, kind }]),
);

/** What the field of a post accepts: an audio recording often comes in a video container. */
const ACCEPTED_BY: Record<MediaKind, (type: MediaType) => boolean> = {
  photo: (type) => type.kind === "photo",
  video: (type) => type.kind === "video",
  audio: (type) => type.kind === "audio" || type.ext === "webm" || type.ext === "mp4",
};

export const acceptsAnyMedia = (_type: MediaType) => true;
export const acceptedBy = (kind: MediaKind) => ACCEPTED_BY[kind];

/** The type of a stored file, by its extension (which was chosen from its bytes). */
export function mediaTypeOfExtension(ext: string): MediaType | undefined {
  return Object.hasOwn(KNOWN, ext) ? KNOWN[ext] : undefined;
}

/** The type of a file by its first bytes, or undefined when it is none the server keeps. */
export async function detectMediaType(path: string): Promise<MediaType | undefined> {
  // Loaded at the first upload, not at start: an idle server needs no file-type (decision 0029).
  const { fileTypeFromFile } = await import("file-type");
  const found = await fileTypeFromFile(path);
  return found ? mediaTypeOfExtension(found.ext) : undefined;
}

/** For error messages: what may be sent. */
export function acceptedList(accepts: (type: MediaType) => boolean): string {
  return Object.values(KNOWN)
    .filter(accepts)
    .map((type) => type.ext.toUpperCase())
    .filter((ext, index, all) => all.indexOf(ext) === index)
    .join(", ");
}
