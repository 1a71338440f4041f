// The compose page (decision 0054): write a note, an article or a photo with its alt text, edit a post,
// delete one, from the page and without JavaScript.
//   GET  {mountPath}/compose                  the form
//   POST {mountPath}/compose?_csrf=…          publish (multipart: the photo); the CSRF token rides in
//                                             the query because the host checks it before the body is read
//   POST {mountPath}/compose/preview          the text each ticked target would get (htmx: the section)
//   GET  {mountPath}/posts/:id/edit           the edit form; POST saves it (a Micropub update)
//   GET  {mountPath}/posts/:id/delete         "Delete this post?"; POST deletes it (a Micropub delete)
// Every change goes through the host's Micropub endpoint (Server.micropub): the same reading, scope
// checks, post service and content store as any client's request; the copies follow by themselves.
import type { Request, RequestHandler, Response } from "express";
import { setFlash } from "../../contract/flash.ts";
import { HttpError, notImplemented } from "../../contract/http-error.ts";
import type { MicropubFields, MicropubPort } from "../../contract/micropub.ts";
import type { Post } from "../../contract/posts.ts";
import {
  type ComposeForm,
  ComposeRefusal,
  checkComposeForm,
  composeFormOfFields,
  composeFormOfPost,
  draftPost,
  editPhotosOfFields,
  MAX_ALT_CHARS,
  MAX_CONTENT_CHARS,
  MAX_PHOTOS,
  micropubFieldsOf,
  micropubUpdateOf,
  NEW_PHOTO_ROWS,
  NEW_SLOT,
  PHOTO_SLOT,
  photosAfterEdit,
  postPhotos,
  readComposeForm,
} from "../page/compose-form.ts";
import { findPostById } from "../page/post-results.ts";
import { previewPageView } from "../page/preview-view.ts";
import { renderView } from "../page/render.ts";
import { type PageServices, pageServices, translatorOf } from "../page/services.ts";
import type { RouteContext } from "./route-context.ts";

const isHtmx = (req: Request) => req.get("hx-request") === "true";
const PHOTO_FIELDS = new Set(["photo", "photo[]"]);

function micropubOf(services: PageServices, res: Response): MicropubPort {
  const port = services.server.micropub;
  // Not only a database matter: a foreign host may offer no Micropub endpoint of its own.
  if (!port) throw notImplemented(translatorOf(res)("compose.unavailable"));
  return port;
}

const emptyForm = (): ComposeForm => ({
  kind: "note",
  name: "",
  content: "",
  categories: "",
  alt: "",
  targets: [],
  photos: [],
});

/** The edit form's photo rows: each of the post's photos with the alt text and choice as last sent. */
function photoRowsOf(post: Post, form: ComposeForm) {
  return postPhotos(post).map((photo, index) => {
    const row = form.photos.find((each) => each.url === photo.url);
    return { index, url: photo.url, alt: row ? row.alt : photo.alt, remove: row?.remove ?? false };
  });
}

/**
 * The edit form's rows for new photos (decision 0060): NEW_PHOTO_ROWS of them, or as many as the
 * form last sent, never past MAX_PHOTOS rows in all (each row's file input is a file part, even
 * empty). The alt texts typed come back after a refusal; the files do not (a browser forgets them).
 */
function newPhotoRowsOf(post: Post, form: ComposeForm) {
  const room = Math.max(0, MAX_PHOTOS - postPhotos(post).length);
  const typed = form.photos.filter((row) => row.url === null).map((row) => row.alt);
  const count = Math.min(room, Math.max(NEW_PHOTO_ROWS, typed.length));
  return Array.from({ length: count }, (_, index) => ({ number: index + 1, alt: typed[index] ?? "" }));
}

interface ComposeView {
  form: ComposeForm;
  /** The post being edited; absent on the compose page. */
  post?: Post;
  message?: { kind: "success" | "error"; text: string };
  previews?: Awaited<ReturnType<typeof previewPageView>>["targets"];
  status?: number;
}

/** The text a target would get, for each ticked target (the preview's own code). */
async function previewsOf(services: PageServices, form: ComposeForm, post?: Post) {
  const url = post?.url ?? services.server.publication.me;
  const draft = draftPost(form, url, new Date(), post);
  return (await previewPageView(services, draft)).targets;
}

async function renderCompose(context: RouteContext, req: Request, res: Response, view: ComposeView) {
  const services = pageServices(context, res);
  const t = translatorOf(res);
  const editing = view.post;
  const base = `${context.mountPath}`;
  res.setHeader("Cache-Control", "no-store");
  res.status(view.status ?? 200).render("syndicate/compose.njk", {
    mountPath: context.mountPath,
    title: editing ? t("compose.editTitle") : t("compose.title"),
    form: view.form,
    post: editing ?? null,
    message: view.message ?? null,
    previews: view.previews ?? null,
    // The token the host checks for a multipart form, in the action: its body is read after the check.
    action: `${base}/${editing ? `posts/${encodeURIComponent(editing.id)}/edit` : "compose"}?_csrf=${encodeURIComponent(req.csrfToken ?? "")}`,
    photoRows: editing ? photoRowsOf(editing, view.form) : [],
    newPhotoRows: editing ? newPhotoRowsOf(editing, view.form) : [],
    maxPhotos: MAX_PHOTOS,
    photoRoom: editing ? Math.max(0, MAX_PHOTOS - postPhotos(editing).length) : 0,
    photoSlot: PHOTO_SLOT,
    newSlot: NEW_SLOT,
    previewAction: `${base}/compose/preview${editing ? `?post=${encodeURIComponent(editing.id)}` : ""}`,
    targets: services.syndicators.map((syndicator) => ({
      uid: syndicator.info.uid,
      name: syndicator.info.name,
      service: syndicator.info.service?.name ?? null,
    })),
    maxPhotoMegabytes: Number((services.server.media.maxBytes / 1_000_000).toPrecision(3)),
    maxContent: MAX_CONTENT_CHARS,
    maxAlt: MAX_ALT_CHARS,
  });
}

/** A refusal in the reader's words: the page's own, or the endpoint's (localised where it says how). */
function refusalText(res: Response, error: unknown): { text: string; status: number } | null {
  const t = translatorOf(res);
  if (error instanceof ComposeRefusal)
    return { text: t(`compose.errors.${error.key}`, error.values), status: 400 };
  if (error instanceof HttpError && error.status < 500 && error.status !== 401 && error.status !== 403) {
    const text = error.pageMessage
      ? t(error.pageMessage.key, error.pageMessage.values)
      : t("compose.errors.refused", { reason: error.description });
    return { text, status: error.status };
  }
  if (error instanceof HttpError && error.status >= 500)
    return { text: t("compose.errors.refused", { reason: error.description }), status: error.status };
  return null;
}

export function composePageRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    micropubOf(services, res);
    await renderCompose(context, req, res, { form: emptyForm() });
  };
}

export function publishRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    const micropub = micropubOf(services, res);
    const t = translatorOf(res);
    let form = emptyForm();
    const knownTargets = services.syndicators.map((syndicator) => syndicator.info.uid);
    let location: string;
    try {
      if (!req.is("multipart/form-data")) throw new ComposeRefusal("notMultipart");
      const outcome = await micropub.postMultipart(req, (sent: MicropubFields) => {
        form = composeFormOfFields(sent);
        const photos = sent
          .filter(([name, value]) => PHOTO_FIELDS.has(name) && value !== "")
          .map(([, url]) => url);
        checkComposeForm(form, photos.length > 0, knownTargets);
        return micropubFieldsOf(form, photos);
      });
      if (outcome.status !== 201) throw new Error("The Micropub endpoint created no post");
      location = outcome.location;
    } catch (error) {
      const refusal = refusalText(res, error);
      if (!refusal) throw error;
      await renderCompose(context, req, res, {
        form,
        message: { kind: "error", text: refusal.text },
        status: refusal.status,
      });
      return;
    }
    const post = await services.posts.findByUrl(location);
    setFlash(res, { kind: "success", text: t("compose.published", { url: location }) });
    res.redirect(303, post ? `${context.mountPath}/posts/${encodeURIComponent(post.id)}` : context.mountPath);
  };
}

export function composePreviewRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    micropubOf(services, res);
    const form = readComposeForm(req.body);
    const postId = typeof req.query.post === "string" ? req.query.post : undefined;
    const post = postId ? await findPostById(services, res, postId) : undefined;
    const previews = await previewsOf(services, form, post);
    if (isHtmx(req)) {
      const html = await renderView(res, "syndicate/_compose-preview.njk", { previews });
      res.setHeader("Cache-Control", "no-store");
      res.type("html").send(html);
      return;
    }
    await renderCompose(context, req, res, { form, previews, ...(post ? { post } : {}) });
  };
}

export function editPageRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    micropubOf(services, res);
    const post = await ownPost(services, res, String(req.params.id));
    await renderCompose(context, req, res, { form: composeFormOfPost(post), post });
  };
}

/** Only the site's own posts are Micropub's to change: a feed's entry is changed at its origin. */
async function ownPost(services: PageServices, res: Response, id: string): Promise<Post> {
  const post = await findPostById(services, res, id);
  if (post.origin !== undefined) throw new HttpError(409, "conflict", translatorOf(res)("compose.notOwn"));
  return post;
}

/**
 * Saves the edit form: multipart when it brings photos (decision 0060; the files are stored as a
 * post's, and removed when the edit is refused), form-encoded otherwise. Either way one Micropub
 * update, photos replaced as a whole with their alt text.
 */
export function saveEditRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    const micropub = micropubOf(services, res);
    const t = translatorOf(res);
    const post = await ownPost(services, res, String(req.params.id));
    const knownTargets = services.syndicators.map((syndicator) => syndicator.info.uid);
    let form = readComposeForm(req.body);
    const updateOf = (edited: ComposeForm) => {
      const photos = photosAfterEdit(post, edited.photos);
      checkComposeForm({ ...edited, alt: "" }, photos.length > 0, knownTargets);
      return micropubUpdateOf(post, edited, photos);
    };
    try {
      if (req.is("multipart/form-data")) {
        await micropub.updateMultipart(req, (sent: MicropubFields) => {
          form = { ...composeFormOfFields(sent), photos: editPhotosOfFields(sent) };
          return updateOf(form);
        });
      } else {
        const update = updateOf(form);
        if (update) await micropub.post(req.auth, "json", update);
      }
    } catch (error) {
      const refusal = refusalText(res, error);
      if (!refusal) throw error;
      await renderCompose(context, req, res, {
        form,
        post,
        message: { kind: "error", text: refusal.text },
        status: refusal.status,
      });
      return;
    }
    setFlash(res, { kind: "success", text: t("compose.saved") });
    res.redirect(303, `${context.mountPath}/posts/${encodeURIComponent(post.id)}`);
  };
}

export function deletePageRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    micropubOf(services, res);
    const post = await ownPost(services, res, String(req.params.id));
    const copies = (await services.syndication.reads.entriesForPost(post.id)).filter((entry) => entry.url);
    res.setHeader("Cache-Control", "no-store");
    res.render("syndicate/delete.njk", {
      mountPath: context.mountPath,
      title: translatorOf(res)("compose.delete.title"),
      post: { id: post.id, url: post.url, text: composeFormOfPost(post).content.slice(0, 280) },
      copies: copies.map((entry) => ({ url: entry.url, uid: entry.targetUid })),
      resultsHref: `${context.mountPath}/posts/${encodeURIComponent(post.id)}`,
    });
  };
}

export function deleteRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const services = pageServices(context, res);
    const micropub = micropubOf(services, res);
    const t = translatorOf(res);
    const post = await ownPost(services, res, String(req.params.id));
    try {
      await micropub.post(req.auth, "form", { action: "delete", url: post.url });
    } catch (error) {
      const refusal = refusalText(res, error);
      if (!refusal) throw error;
      setFlash(res, { kind: "error", text: refusal.text });
      res.redirect(303, `${context.mountPath}/posts/${encodeURIComponent(post.id)}`);
      return;
    }
    setFlash(res, { kind: "success", text: t("compose.deleted", { url: post.url }) });
    res.redirect(303, `${context.mountPath}/posts/${encodeURIComponent(post.id)}`);
  };
}
