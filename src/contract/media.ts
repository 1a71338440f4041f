// The host's uploaded files as plug-ins see them (Server.media): a syndicator reads a photo of the
// server's own from storage rather than fetching it from ourselves over HTTP.
import type { Readable } from "node:stream";

export type MediaKind = "photo" | "video" | "audio";

export interface MediaType {
  /** The extension the file is stored under (and served by). */
  ext: string;
  /** The Content-Type it is served with. */
  mime: string;
  kind: MediaKind;
}

export interface StoredMedia {
  name: string;
  url: string;
  type: MediaType;
  bytes: number;
}

/** A stored file, read back by a syndicator to upload it elsewhere. */
export interface MediaFile {
  bytes: Uint8Array<ArrayBuffer>;
  mimeType: string;
  filename: string;
}

/** What plug-ins may do with uploaded files (Server.media). */
export interface MediaLibrary {
  /** Largest file kept, in bytes (media.maxBytes). */
  readonly maxBytes: number;
  /** Streams a file in: 413 past maxBytes, 415 unless `accepts` takes the type its bytes show. */
  save(source: Readable, accepts: (type: MediaType) => boolean): Promise<StoredMedia>;
  /** Removes a file saved by a request that then failed, or one that no post names any more. */
  remove(name: string): Promise<void>;
  /** The stored name behind one of the server's own media URLs; undefined for any other URL. */
  nameOf(url: string): string | undefined;
  /** The file behind one of the server's own media URLs; undefined for any other URL. */
  read(url: string): Promise<MediaFile | undefined>;
}
