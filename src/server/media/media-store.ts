// Uploaded files (the Micropub media endpoint, photos sent with a post), kept in one folder and
// served by the host at /media/<name>. A file is streamed to a hidden temporary name, cut off as
// soon as it passes the size limit, typed by its bytes, and only then given its public name: a
// refused or broken upload leaves nothing behind.
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { HttpError } from "../../contract/http-error.ts";
import type { MediaFile, MediaLibrary, MediaType, StoredMedia } from "../../contract/media.ts";
import { acceptedList, detectMediaType, mediaTypeOfExtension } from "./media-types.ts";

export type { MediaFile, MediaLibrary, StoredMedia };

/** Where the host serves the files, below application.url. */
export const MEDIA_PATH = "/media";

/** An upload still being written carries this prefix (hidden, never served). */
const PARTIAL_PREFIX = ".upload-";
/** A partial upload this old was left by a process that died mid-upload (uploads take seconds). */
const PARTIAL_ABANDONED_MS = 60 * 60 * 1000;

/** The only names a stored file has: random, with the extension its bytes earned. */
const STORED_NAME = /^[A-Za-z0-9_-]{16,64}\.[a-z0-9]{1,8}$/;

export const tooLarge = (maxBytes: number) =>
  new HttpError(
    413,
    "payload_too_large",
    `The file is larger than this server accepts (${maxBytes} bytes; media.maxBytes)`,
    { Connection: "close" },
  ).localized("error.fileTooLarge", { megabytes: megabytes(maxBytes) });

/** A limit in bytes as people read it: "10" MB, "0.5" MB, "0.001" MB. */
const megabytes = (bytes: number) => String(Number((bytes / 1_000_000).toPrecision(3)));

/** Counts what passes and fails the moment it passes the limit, so a huge upload is never read whole. */
function sizeLimit(maxBytes: number): { stream: Transform; seen: () => number } {
  let seen = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(tooLarge(maxBytes));
      else done(null, chunk);
    },
  });
  return { stream, seen: () => seen };
}

/** The site's repository, when uploads go there too (a folder or git content store, decision 0032). */
export interface MediaSite {
  /** The file's public URL on the site. */
  url(name: string): string;
  /** Adds the file to the site; throws when the store refuses it. */
  publish(files: Array<{ name: string; bytes: Uint8Array }>): Promise<void>;
}

export class MediaStore implements MediaLibrary {
  /** Absolute URL of the folder as served, ending in "/". */
  readonly baseUrl: string;
  private site: MediaSite | undefined;

  /** From now on, each upload is also added to the site and named by its URL there. */
  publishTo(site: MediaSite): void {
    this.site = site;
  }

  constructor(
    readonly folder: string,
    applicationUrl: string,
    readonly maxBytes: number,
  ) {
    this.baseUrl = `${applicationUrl.replace(/\/+$/, "")}${MEDIA_PATH}/`;
  }

  /**
   * Streams a file into the folder. Refused with 413 past maxBytes, 415 when its bytes are not of a
   * type `accepts` takes; either way nothing is kept.
   */
  async save(source: Readable, accepts: (type: MediaType) => boolean): Promise<StoredMedia> {
    await mkdir(this.folder, { recursive: true, mode: 0o700 });
    const id = randomBytes(18).toString("base64url");
    const temporary = join(this.folder, `${PARTIAL_PREFIX}${id}`);
    try {
      const limit = sizeLimit(this.maxBytes);
      await pipeline(source, limit.stream, createWriteStream(temporary, { mode: 0o600 }));
      const type = await detectMediaType(temporary);
      if (!type || !accepts(type))
        throw new HttpError(
          415,
          "unsupported_media_type",
          `The file's contents are not ${type ? "of a kind this field takes" : "a kind this server keeps"}; send ${acceptedList(accepts)}`,
        ).localized("error.fileNotAccepted", { accepted: acceptedList(accepts) });
      const name = `${id}.${type.ext}`;
      await rename(temporary, join(this.folder, name));
      if (!this.site) return { name, url: `${this.baseUrl}${name}`, type, bytes: limit.seen() };
      try {
        await this.site.publish([{ name, bytes: await readFile(join(this.folder, name)) }]);
      } catch (error) {
        await rm(join(this.folder, name), { force: true });
        throw new HttpError(
          502,
          "store_failed",
          `The file was not kept: the site's store refused it (${(error as Error).message}). Send it again once the store works`,
        );
      }
      return { name, url: this.site.url(name), type, bytes: limit.seen() };
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  /**
   * Removes partial uploads left by a process that died while writing them (at start). Only old
   * ones: another instance sharing the folder may be writing a fresh one right now.
   */
  async sweepAbandoned(now = Date.now()): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names.filter((each) => each.startsWith(PARTIAL_PREFIX))) {
      const path = join(this.folder, name);
      const written = await stat(path).then(
        (found) => found.mtimeMs,
        () => now,
      );
      if (now - written < PARTIAL_ABANDONED_MS) continue;
      await rm(path, { force: true });
      removed++;
    }
    return removed;
  }

  /** Removes a stored file (the request that brought it failed). */
  async remove(name: string): Promise<void> {
    const path = this.pathOf(name);
    if (path) await rm(path, { force: true });
  }

  /** The path of a stored file's name, or undefined for any name the store never gives. */
  pathOf(name: string): string | undefined {
    return STORED_NAME.test(name) ? join(this.folder, name) : undefined;
  }

  /** The stored type of a file, by its name. */
  typeOf(name: string): MediaType | undefined {
    return STORED_NAME.test(name) ? mediaTypeOfExtension(name.slice(name.lastIndexOf(".") + 1)) : undefined;
  }

  /** The name of a file behind one of our own media URLs. */
  nameOf(url: string): string | undefined {
    if (this.site) {
      // The site's URL of an upload (the same name, at the site's media folder).
      const name = url.slice(url.lastIndexOf("/") + 1);
      if (STORED_NAME.test(name) && this.site.url(name) === url) return name;
    }
    if (!url.startsWith(this.baseUrl)) return undefined;
    const name = url.slice(this.baseUrl.length);
    return STORED_NAME.test(name) ? name : undefined;
  }

  async read(url: string): Promise<MediaFile | undefined> {
    const name = this.nameOf(url);
    const path = name === undefined ? undefined : this.pathOf(name);
    const type = name === undefined ? undefined : this.typeOf(name);
    if (!name || !path || !type) return undefined;
    try {
      const bytes = await readFile(path);
      return { bytes: new Uint8Array(bytes), mimeType: type.mime, filename: name };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }
}
