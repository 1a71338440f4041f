// GET /media/<name>: the uploaded files, for anyone (they are published with posts). Only names the
// store gives are served (no path can be named, so none can climb out of the folder), never a
// listing, with the type the bytes earned at upload, nosniff, and a sandbox in case a browser opens
// one as a page. A name never changes its content, so it may be cached for a year.
import { Router } from "express";
import { notFound } from "../../contract/http-error.ts";
import type { MediaStore } from "./media-store.ts";

const YEAR_SECONDS = 365 * 24 * 60 * 60;

export function mediaFiles(store: MediaStore): Router {
  const router = Router();
  router.get("/:name", (req, res, next) => {
    const name = req.params.name;
    const path = store.pathOf(name);
    const type = store.typeOf(name);
    if (!path || !type) {
      next(notFound("No such file"));
      return;
    }
    res.sendFile(
      path,
      {
        dotfiles: "deny",
        headers: {
          "Content-Type": type.mime,
          "X-Content-Type-Options": "nosniff",
          "Content-Security-Policy": "default-src 'none'; sandbox",
          "Cache-Control": `public, max-age=${YEAR_SECONDS}, immutable`,
        },
      },
      (error?: Error & { status?: number; statusCode?: number }) => {
        if (!error) return;
        if (res.headersSent) return;
        const status = error.status ?? error.statusCode;
        next(
          status === 404 || (error as NodeJS.ErrnoException).code === "ENOENT"
            ? notFound("No such file")
            : error,
        );
      },
    );
  });
  // Any other path below /media/ (the folder itself, a nested path) is not a file: no listing.
  router.use((_req, _res, next) => next(notFound("No such file")));
  return router;
}
