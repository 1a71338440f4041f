// multipart/form-data, streamed (busboy): each file goes straight into the media store as it
// arrives, cut off at the size limit, and text fields are kept in order. When anything fails, the
// files of the request already stored are removed: a refused request leaves no orphan behind.
import { Busboy } from "@fastify/busboy";
import type { Request } from "express";
import { parse } from "qs";
import { badRequest, HttpError } from "../../contract/http-error.ts";
import { MULTIPART_MAX_FILES } from "../../contract/micropub.ts";
import type { MediaLibrary, StoredMedia } from "../media/media-store.ts";
import type { MediaType } from "../media/media-types.ts";

/** Text fields and parts at most: as many as a form-encoded body may have. */
const MAX_FIELDS = 1000;
const MAX_FILES = MULTIPART_MAX_FILES;
/** The text fields' limit when the app names none (application.bodyLimit's default). */
const DEFAULT_TEXT_BYTES = 100_000;

/**
 * The text fields of a multipart body, names and values together, weigh at most what a form-encoded
 * body may (application.bodyLimit, which app.ts puts in app.locals): the same post is refused the
 * same way however it is sent, and a token that may only upload cannot make the server hold more.
 */
function textLimit(req: Request): number {
  const limit = req.app?.locals?.bodyLimit;
  return typeof limit === "number" && limit > 0 ? limit : DEFAULT_TEXT_BYTES;
}

export interface MultipartBody {
  /** In arrival order; an uploaded file stands in as its URL where it arrived. */
  fields: Array<[name: string, value: string]>;
  /** The files stored, each with the name of its field. */
  files: Array<{ field: string; media: StoredMedia }>;
}

/** Over one of busboy's limits: the page names which, in the reader's words (error.tooMany.*). */
const tooMuch = (what: "fields" | "files" | "parts", limit: number) =>
  new HttpError(413, "payload_too_large", `The request has too many ${what} (at most ${limit})`, {
    Connection: "close",
  }).localized(`error.tooMany.${what}`, { max: String(limit) });
const textTooLarge = (limit: number) =>
  new HttpError(
    413,
    "payload_too_large",
    `The text fields are over the ${limit.toLocaleString("en")} bytes a form may have; send long text as a file`,
    { Connection: "close" },
  ).localized("error.textTooLarge", { limit: limit.toLocaleString("en") });

/**
 * Reads a multipart body. `fileField` says which types a field of that name takes as a file, or
 * undefined when the field takes no file (then the request is refused, 400, naming `fileFields`).
 */
export function readMultipart(
  req: Request,
  media: MediaLibrary,
  fileField: (name: string) => ((type: MediaType) => boolean) | undefined,
  fileFields: string,
): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    const fields: MultipartBody["fields"] = [];
    const files: MultipartBody["files"] = [];
    const saving: Promise<unknown>[] = [];
    const open = new Set<NodeJS.ReadableStream & { destroy(error?: Error): void }>();
    let failure: unknown;
    const textBytes = textLimit(req);
    let textSoFar = 0;

    const removeStored = () => Promise.allSettled(files.map((file) => media.remove(file.media.name)));
    // Synchronous on purpose: it is called from the saves it waits for.
    const fail = (error: unknown) => {
      if (failure !== undefined) return;
      failure = error;
      req.unpipe(parser);
      req.resume();
      for (const stream of open) {
        // A save that already read its stream to the end no longer listens: the error is ours, not news.
        stream.on("error", () => {});
        stream.destroy(error instanceof Error ? error : undefined);
      }
      void Promise.allSettled(saving)
        .then(removeStored)
        .then(() => reject(error));
    };

    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: req.headers as { "content-type": string },
        limits: {
          fields: MAX_FIELDS,
          files: MAX_FILES,
          parts: MAX_FIELDS + MAX_FILES,
          // One field is held whole until it ends: never more than the whole text may weigh.
          fieldSize: textBytes,
          fieldNameSize: 200,
        },
      });
    } catch {
      reject(
        badRequest("The multipart body has no boundary; send Content-Type: multipart/form-data; boundary=…"),
      );
      return;
    }
    parser.on("file", (name, stream, filename) => {
      // A browser sends a file input left empty as a part with no file name and no bytes: no file.
      if (filename === "") {
        stream.resume();
        return;
      }
      const accepts = fileField(name.endsWith("[]") ? name.slice(0, -2) : name);
      if (failure !== undefined || !accepts) {
        stream.resume();
        fail(badRequest(`"${name}" cannot be a file: send files as ${fileFields}`));
        return;
      }
      const slot = fields.push([name, ""]) - 1;
      open.add(stream);
      const saved = media.save(stream, accepts).finally(() => open.delete(stream));
      saving.push(saved);
      saved.then((stored) => {
        files.push({ field: name, media: stored });
        fields[slot] = [name, stored.url];
        // A failure that came while this file was being written: it is an orphan now.
        if (failure !== undefined) void media.remove(stored.name);
      }, fail);
    });
    parser.on("field", (name, value, nameTruncated, valueTruncated) => {
      if (failure !== undefined) return;
      if (nameTruncated) {
        fail(new HttpError(413, "payload_too_large", `The field name "${name.slice(0, 50)}…" is too long`));
        return;
      }
      textSoFar += Buffer.byteLength(name) + Buffer.byteLength(value);
      if (valueTruncated || textSoFar > textBytes) {
        fail(textTooLarge(textBytes));
        return;
      }
      fields.push([name, value]);
    });
    parser.on("fieldsLimit", () => fail(tooMuch("fields", MAX_FIELDS)));
    parser.on("filesLimit", () => fail(tooMuch("files", MAX_FILES)));
    parser.on("partsLimit", () => fail(tooMuch("parts", MAX_FIELDS + MAX_FILES)));
    parser.on("error", (error) =>
      fail(
        badRequest(
          `The multipart body could not be read: ${error instanceof Error ? error.message : "malformed"}`,
        ),
      ),
    );
    parser.on("finish", () => {
      void Promise.allSettled(saving).then(() => {
        if (failure === undefined) resolve({ fields, files });
      });
    });
    req.on("aborted", () => fail(badRequest("The request was cut off before its end")));
    req.pipe(parser);
  });
}

/** The text fields read as a form-encoded body would be (category[]=…, photo[alt]=…). */
export function asFormBody(fields: MultipartBody["fields"]): unknown {
  const encoded = new URLSearchParams(fields).toString();
  try {
    return parse(encoded, {
      allowPrototypes: true,
      arrayLimit: MAX_FIELDS,
      depth: 32,
      parameterLimit: MAX_FIELDS + MAX_FILES,
      strictDepth: true,
    });
  } catch {
    throw badRequest("The field names nest deeper than 32 levels");
  }
}
