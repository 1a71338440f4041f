// The host's Micropub endpoint as a plug-in's page reaches it (PossekitServer.micropub): the compose
// page posts, edits and deletes through the very code a Micropub client's request runs through
// (the same reading, the same scope checks, the same post service and store), never a copy of it.
import type { Request } from "express";
import type { Authenticated } from "./auth.ts";

/** What the endpoint answered: 201 with the new post's URL, or 204 for a change. */
export type MicropubOutcome = { status: 201; location: string } | { status: 204 };

/**
 * The files one multipart request may bring (POST /micropub and the compose page alike): a page
 * that offers more rows than this could not send them, so the edit form's photos stop here too.
 */
export const MULTIPART_MAX_FILES = 20;

/** The text fields of a multipart post, in arrival order (an uploaded file stands in as its URL). */
export type MicropubFields = Array<[name: string, value: string]>;

export interface MicropubPort {
  /**
   * A multipart/form-data post read from `req` as POST /micropub reads one (files into the media
   * store, cut off at media.maxBytes; text fields at application.bodyLimit), on behalf of req.auth.
   * `fields` may rewrite the text fields before they are read as a form (a page's own field
   * names); an error it throws refuses the post, and the files already stored are removed.
   */
  postMultipart(req: Request, fields?: (sent: MicropubFields) => MicropubFields): Promise<MicropubOutcome>;
  /**
   * An edit that brings files (a page's edit form, decision 0060): the files are stored as
   * postMultipart stores them, then `update` makes the JSON update of the text fields (each file
   * standing in as its URL), dispatched as POST /micropub dispatches one, on behalf of req.auth.
   * Null from `update`: nothing to change. Files the update does not name, and every file when it
   * is refused, are removed; so are the post's former photos in the media store that no post names
   * any more.
   */
  updateMultipart(
    req: Request,
    update: (sent: MicropubFields) => Record<string, unknown> | null,
  ): Promise<MicropubOutcome>;
  /** A form-encoded or JSON body, as POST /micropub reads it, on behalf of `auth`. */
  post(auth: Authenticated | undefined, kind: "form" | "json", body: unknown): Promise<MicropubOutcome>;
}
