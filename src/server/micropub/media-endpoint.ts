// POST {micropub}/media: the Micropub media endpoint (W3C Micropub §3.6). One file in the part
// named "file", stored and answered 201 with its URL in Location; a client then names that URL
// in a post. The scope "media" is enough (or "create", which may upload with a post anyway).
import type { Request, RequestHandler, Response } from "express";
import { hasScope } from "../../contract/auth.ts";
import { badRequest, HttpError, insufficientScope } from "../../contract/http-error.ts";
import type { MediaLibrary } from "../media/media-store.ts";
import { acceptsAnyMedia } from "../media/media-types.ts";
import { readMultipart } from "./multipart-request.ts";

/** Micropub §3.8: a token without the scope needed is 401 insufficient_scope, naming the scope. */
const MICROPUB_SCOPE_STATUS = 401;

/** A request refused before its body was read to the end: close the connection rather than read on. */
export function closeIfUnread(req: Request, res: Response): void {
  if (!req.complete) res.setHeader("Connection", "close");
}

export function mediaUpload(media: () => MediaLibrary): RequestHandler {
  return async (req, res) => {
    if (!hasScope(req.auth, "media") && !hasScope(req.auth, "create")) {
      closeIfUnread(req, res);
      throw insufficientScope("media", MICROPUB_SCOPE_STATUS);
    }
    if (!req.is("multipart/form-data")) {
      closeIfUnread(req, res);
      throw new HttpError(
        415,
        "unsupported_media_type",
        'Send the file as multipart/form-data, in a part named "file"',
      );
    }
    const library = media();
    let body: Awaited<ReturnType<typeof readMultipart>>;
    try {
      body = await readMultipart(
        req,
        library,
        (name) => (name === "file" ? acceptsAnyMedia : undefined),
        '"file"',
      );
    } catch (error) {
      closeIfUnread(req, res);
      throw error;
    }
    const [file, ...others] = body.files;
    if (!file || others.length > 0) {
      await Promise.all(body.files.map((stored) => library.remove(stored.media.name)));
      throw badRequest(
        file ? 'Send one file at a time, in a part named "file"' : 'Send the file in a part named "file"',
      );
    }
    res.status(201).location(file.media.url).json({ url: file.media.url });
  };
}
