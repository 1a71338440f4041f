// POST /micropub: create (form or JSON), update (JSON), delete and undelete (form or JSON).
import type { Request, RequestHandler } from "express";
import { type Authenticated, hasScope } from "../../contract/auth.ts";
import { badRequest, HttpError, insufficientScope } from "../../contract/http-error.ts";
import { photos } from "../../contract/jf2.ts";
import { jf2Type, type Mf2Properties, mf2PropertiesToJf2, mf2ValuesToJf2 } from "../../contract/mf2-jf2.ts";
import type { MicropubFields, MicropubOutcome, MicropubPort } from "../../contract/micropub.ts";
import type { PostUpdate } from "../../contract/posts.ts";
import type { MediaLibrary } from "../media/media-store.ts";
import { acceptedBy, type MediaKind, type MediaType } from "../media/media-types.ts";
import { closeIfUnread } from "./media-endpoint.ts";
import type { MicropubContext } from "./micropub-context.ts";
import { type BodyKind, type MicropubAction, readMicropubRequest } from "./micropub-request.ts";
import { asFormBody, readMultipart } from "./multipart-request.ts";
import { asMicropubErrors } from "./service-errors.ts";
import { readSyndicateText, SYNDICATE_TEXT } from "./syndicate-text.ts";
import { readSyndicateThread, SYNDICATE_THREAD } from "./syndicate-thread.ts";
import { checkSyndicationTargets } from "./syndication-targets.ts";

/** Micropub §3.8: a token without the scope needed is 401 insufficient_scope, naming the scope. */
const MICROPUB_SCOPE_STATUS = 401;

type Of<A extends MicropubAction["action"]> = Extract<MicropubAction, { action: A }>;

/** The properties that take an uploaded file (Micropub §3.6.1), and what each takes. */
const FILE_PROPERTIES: Record<string, MediaKind> = { photo: "photo", video: "video", audio: "audio" };
/** Any scope that may send a Micropub POST at all: without one, not a byte of a file is stored. */
const POSTING_SCOPES = ["create", "draft", "update", "delete"];

function bodyKind(req: Request): BodyKind | "multipart" {
  if (req.is(["application/json", "application/*+json"])) return "json";
  if (req.is("application/x-www-form-urlencoded")) return "form";
  if (req.is("multipart/form-data")) return "multipart";
  throw new HttpError(
    415,
    "unsupported_media_type",
    "Send the request as application/x-www-form-urlencoded, multipart/form-data or application/json",
  );
}

function fileProperty(name: string): ((type: MediaType) => boolean) | undefined {
  const kind = Object.hasOwn(FILE_PROPERTIES, name) ? FILE_PROPERTIES[name] : undefined;
  return kind ? acceptedBy(kind) : undefined;
}

async function create(
  context: MicropubContext,
  auth: Authenticated | undefined,
  request: Of<"create">,
): Promise<MicropubOutcome> {
  const draftOnly = !hasScope(auth, "create");
  if (draftOnly && !hasScope(auth, "draft")) throw insufficientScope("create", MICROPUB_SCOPE_STATUS);
  // The thread choices are kept where the page's are, never in the post (decision 0064).
  const { [SYNDICATE_TEXT]: texts, [SYNDICATE_THREAD]: threadValues, ...mf2 } = request.properties;
  const properties = mf2PropertiesToJf2(mf2);
  if (texts !== undefined) properties[SYNDICATE_TEXT] = readSyndicateText(texts, context.syndicators);
  const threads =
    threadValues === undefined ? undefined : readSyndicateThread(threadValues, context.syndicators);
  // The URL is the server's to choose; a client's own is ignored, not an error.
  delete properties.url;
  properties.type = jf2Type(request.type);
  const targets = properties["mp-syndicate-to"];
  if (targets !== undefined) checkSyndicationTargets(targets as unknown[]);
  // A token with the draft scope alone may only ever create drafts, whatever it asks for.
  if (draftOnly) properties["post-status"] = "draft";
  const post = await asMicropubErrors(() =>
    context.posts.create({
      properties,
      ...(request.slug !== undefined ? { slug: request.slug } : {}),
      ...(draftOnly ? { status: "draft" as const } : {}),
    }),
  );
  if (threads) await context.saveThreadChoices(post.url, threads);
  return { status: 201, location: post.url };
}

function refuseCommands(names: Iterable<string>): void {
  for (const name of names) {
    if (
      name.startsWith("mp-") &&
      name !== "mp-syndicate-to" &&
      name !== SYNDICATE_TEXT &&
      name !== SYNDICATE_THREAD
    )
      throw badRequest(`"${name}" is a command for creating posts, not a property that can be updated`);
  }
}

function toJf2Values(values: Mf2Properties): Record<string, unknown[]> {
  return Object.fromEntries(Object.entries(values).map(([name, list]) => [name, mf2ValuesToJf2(name, list)]));
}

async function update(
  context: MicropubContext,
  auth: Authenticated | undefined,
  request: Of<"update">,
): Promise<MicropubOutcome> {
  if (!hasScope(auth, "update")) throw insufficientScope("update", MICROPUB_SCOPE_STATUS);
  const deletion = request.delete;
  refuseCommands([
    ...Object.keys(request.replace ?? {}),
    ...Object.keys(request.add ?? {}),
    ...(Array.isArray(deletion) ? deletion : Object.keys(deletion ?? {})),
  ]);
  for (const operation of [request.replace, request.add]) {
    const targets = operation?.["mp-syndicate-to"];
    if (targets) checkSyndicationTargets(targets);
  }
  // Texts per target are replaced as a whole (one object), never added to or merged.
  if (request.add?.[SYNDICATE_TEXT]) throw badRequest(`Use replace for ${SYNDICATE_TEXT}, not add`);
  const replacedTexts = request.replace?.[SYNDICATE_TEXT];
  if (request.replace && replacedTexts)
    request.replace[SYNDICATE_TEXT] = [readSyndicateText(replacedTexts, context.syndicators)];
  // Thread choices are replaced per target ("account" undoes one), never kept in the post (decision 0064).
  const deleted = Array.isArray(deletion) ? deletion : Object.keys(deletion ?? {});
  if (request.add?.[SYNDICATE_THREAD] || deleted.includes(SYNDICATE_THREAD))
    throw badRequest(
      `Use replace for ${SYNDICATE_THREAD}, with "account" to go back to a target's own option`,
    );
  const { [SYNDICATE_THREAD]: threadValues, ...replace } = request.replace ?? {};
  const threads =
    threadValues === undefined ? undefined : readSyndicateThread(threadValues, context.syndicators);
  const existing = await context.posts.findByUrl(request.url);
  if (!existing)
    throw badRequest(`No post exists at ${request.url}; check the URL (q=source lists the posts)`);
  if (existing.deleted)
    throw badRequest(`The post at ${request.url} is deleted; undelete it before updating it`);
  const changes: PostUpdate = {
    ...(Object.keys(replace).length > 0 ? { replace: toJf2Values(replace) } : {}),
    ...(request.add ? { add: toJf2Values(request.add) } : {}),
    ...(deletion ? { delete: Array.isArray(deletion) ? deletion : toJf2Values(deletion) } : {}),
  };
  // Saved first: the edit's follow-up then reads the new choice.
  if (threads) await context.saveThreadChoices(existing.url, threads);
  if (Object.keys(changes).length > 0)
    await asMicropubErrors(() => context.posts.update(request.url, changes));
  return { status: 204 };
}

async function setDeleted(
  context: MicropubContext,
  auth: Authenticated | undefined,
  request: Of<"delete" | "undelete">,
): Promise<MicropubOutcome> {
  if (!hasScope(auth, "delete")) throw insufficientScope("delete", MICROPUB_SCOPE_STATUS);
  await asMicropubErrors(() =>
    request.action === "delete" ? context.posts.delete(request.url) : context.posts.undelete(request.url),
  );
  return { status: 204 };
}

function dispatch(
  found: MicropubContext,
  auth: Authenticated | undefined,
  request: MicropubAction,
): Promise<MicropubOutcome> {
  switch (request.action) {
    case "create":
      return create(found, auth, request);
    case "update":
      return update(found, auth, request);
    case "delete":
    case "undelete":
      return setDeleted(found, auth, request);
  }
}

/**
 * A multipart post (Micropub §3.6.1): its files are stored as they arrive and the post names their
 * URLs in place; text fields read as a form. A post that is then refused takes its files with it.
 */
async function multipartPost(
  context: () => MicropubContext,
  media: MediaLibrary,
  req: Request,
  rewrite: (sent: MicropubFields) => MicropubFields = (sent) => sent,
): Promise<MicropubOutcome> {
  let found: MicropubContext;
  let body: Awaited<ReturnType<typeof readMultipart>>;
  try {
    found = context();
    if (!POSTING_SCOPES.some((scope) => hasScope(req.auth, scope)))
      throw insufficientScope("create", MICROPUB_SCOPE_STATUS);
    body = await readMultipart(req, media, fileProperty, "photo, video or audio");
  } catch (error) {
    if (req.res) closeIfUnread(req, req.res);
    throw error;
  }
  try {
    const request = readMicropubRequest("form", asFormBody(rewrite(body.fields)));
    if (request.action !== "create" && body.files.length > 0)
      throw badRequest("Files come with a new post only; send other actions without files");
    return await dispatch(found, req.auth, request);
  } catch (error) {
    await Promise.all(body.files.map((file) => media.remove(file.media.name)));
    throw error;
  }
}

/**
 * An edit that brings files (decision 0060): they are stored as a post's are, the update is made of
 * the fields and dispatched as any client's JSON update. Files the update does not name go at once,
 * all of them when it is refused; the post's former photos that no post names any more go after it.
 */
async function multipartUpdate(
  context: () => MicropubContext,
  media: MediaLibrary,
  req: Request,
  build: (sent: MicropubFields) => Record<string, unknown> | null,
): Promise<MicropubOutcome> {
  let found: MicropubContext;
  let body: Awaited<ReturnType<typeof readMultipart>>;
  try {
    found = context();
    if (!hasScope(req.auth, "update")) throw insufficientScope("update", MICROPUB_SCOPE_STATUS);
    body = await readMultipart(req, media, fileProperty, "photo, video or audio");
  } catch (error) {
    if (req.res) closeIfUnread(req, req.res);
    throw error;
  }
  const removeFiles = (files: typeof body.files) =>
    Promise.all(files.map((file) => media.remove(file.media.name)));
  let update: Record<string, unknown> | null;
  let before: string[] = [];
  try {
    update = build(body.fields);
    if (update) {
      const request = readMicropubRequest("json", update);
      if (request.action !== "update") throw badRequest("Only an update comes with files here");
      const existing = await found.posts.findByUrl(request.url);
      before = existing ? photos(existing.properties, existing.url).map((photo) => photo.url) : [];
      await dispatch(found, req.auth, request);
    }
  } catch (error) {
    await removeFiles(body.files);
    throw error;
  }
  const named = JSON.stringify(update);
  await removeFiles(body.files.filter((file) => !named.includes(JSON.stringify(file.media.url))));
  for (const url of before) {
    const name = media.nameOf(url);
    if (name !== undefined && !(await found.posts.namesUrl(url))) await media.remove(name);
  }
  return { status: 204 };
}

/** The endpoint's work, without Express's answer: POST /micropub and the compose page both run it. */
export function micropubService(context: () => MicropubContext, media: () => MediaLibrary): MicropubPort {
  return {
    postMultipart: (req, fields) => multipartPost(context, media(), req, fields),
    updateMultipart: (req, update) => multipartUpdate(context, media(), req, update),
    post: (auth, kind, body) => dispatch(context(), auth, readMicropubRequest(kind, body)),
  };
}

export function micropubPost(service: MicropubPort): RequestHandler {
  return async (req, res) => {
    const kind = bodyKind(req);
    const outcome =
      kind === "multipart" ? await service.postMultipart(req) : await service.post(req.auth, kind, req.body);
    if (outcome.status === 201) res.status(201).location(outcome.location).end();
    else res.status(204).end();
  };
}
