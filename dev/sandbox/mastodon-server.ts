// A local, Mastodon-compatible server for the demo and the tests: it speaks the parts of the
// Mastodon REST API a syndicator uses, with Mastodon's answers and error bodies (401 for a bad
// token, 422 for a status over the limit, Idempotency-Key replays, media that may still be
// processing), keeps what it receives for inspection, and can be told to fail, to hang, or to hold
// requests until a test releases them.
// Nothing here talks to the network: it listens on a loopback port only.
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  BodyTooLargeError,
  bearerToken,
  hold,
  listen,
  readBody,
  sameSecret,
  sendHtml,
  sendJson,
} from "./http-kit.ts";
import { createSandboxOAuth, type SandboxApp, type SandboxToken, scopesReach } from "./mastodon-oauth.ts";
import { notFoundPage, type PageStatus, statusPage, timelinePage } from "./mastodon-pages.ts";
import { type SandboxSoftware, softwareProfile } from "./mastodon-software.ts";
import { hashtagsIn, statusHtml, statusLength } from "./mastodon-text.ts";
import { boundaryOf, parseMultipart } from "./multipart.ts";
import { requestGate } from "./request-gate.ts";

export interface MastodonSandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The loopback address to listen on; 127.0.0.1 unless given. */
  host?: string;
  /** The one token the sandbox accepts. */
  accessToken: string;
  /** The account's user name; "demo" unless given. */
  user?: string;
  displayName?: string;
  /** Added before every API answer, to make progress visible in a demo. */
  latencyMs?: number;
  /** 500 unless given, as on most instances. */
  characterLimit?: number;
  /** Longest alt text of an upload; 1500 unless given, as on Mastodon. */
  altTextLimit?: number;
  /**
   * Which instance API it offers: "v2" (the default, Mastodon 4.0+) answers /api/v2/instance and
   * /api/v1/instance; "v1" answers 404 to v2, as Mastodon 3.x does.
   */
  instanceApi?: "v1" | "v2";
  /**
   * "sync" (default): an upload is ready at once (200). "async": POST /api/v2/media answers 202 with
   * url null and GET /api/v1/media/:id answers 206 once before 200, as for a large file.
   */
  mediaProcessing?: "sync" | "async";
  /** Shown on the sandbox's pages. */
  name?: string;
  /**
   * Whether it answers /.well-known/oauth-authorization-server (Mastodon 4.3+); by default it does
   * unless instanceApi is "v1".
   */
  oauthMetadata?: boolean;
  /**
   * The sandbox's clock (authorization codes expire after 10 minutes, an Idempotency-Key after an
   * hour, the deletion limit's window); Date.now unless given.
   */
  now?: () => number;
  /**
   * Deletions (DELETE /api/v1/statuses/:id and POST …/unreblog) the account may make in a window of
   * 30 minutes: 30 unless given, Mastodon's throttle_api_delete (config/initializers/rack_attack.rb;
   * Mastodon 4.4 lets an admin set it per role, role_rate_limit(:api_delete)).
   */
  deletionLimit?: number;
  /**
   * The server it answers as (mastodon-software.ts): "mastodon" (the default), "pixelfed",
   * "gotosocial", "akkoma" or "pleroma": its version, NodeInfo, scopes, status pages, limits and
   * what a repeated Idempotency-Key or a status without a photo gets.
   */
  software?: SandboxSoftware;
}

export interface SandboxMedia {
  id: string;
  description: string | null;
  mimeType: string;
  filename: string;
  size: number;
  bytes: Buffer;
  /** Where the sandbox serves the file. */
  url: string;
  /** The status it is attached to, once it is. */
  statusId: string | null;
}

export interface SandboxStatus {
  id: string;
  /** The page of the status, e.g. http://127.0.0.1:4000/@demo/110000000000000001 */
  url: string;
  /** Its ActivityPub id. */
  uri: string;
  username: string;
  /** The text as received. */
  text: string;
  /** The Idempotency-Key it was posted with, if any. */
  idempotencyKey: string | undefined;
  media: SandboxMedia[];
  inReplyToId: string | null;
  visibility: string;
  /** The language it was posted with, if any. */
  language: string | null;
  /** The content_type it was posted with, if any (GoToSocial, Akkoma and Pleroma read it). */
  contentType: string | null;
  createdAt: string;
  favourited: boolean;
  reblogged: boolean;
  /** For a boost: the boosted status. */
  reblogOf: SandboxStatus | null;
  /** When it was last edited (PUT /api/v1/statuses/:id), if ever. */
  editedAt: string | null;
  /** When it was deleted through the API, if it was: it then answers 404 like any unknown id. */
  deletedAt: string | null;
}

export interface SandboxRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  /** Whether it carried the sandbox's token. */
  authorized: boolean;
  /** The body's media type, as sent (an edit's form or JSON matters on GoToSocial). */
  contentType?: string;
}

export interface SandboxBehaviour {
  /**
   * Which requests it applies to, as "METHOD /path" with ":id" for ids, e.g.
   * "POST /api/v1/statuses" (the default) or "POST /api/v2/media"; "*" for every API request. An
   * OAuth route ("POST /oauth/token", "POST /api/v1/apps") is answered with status and body only.
   */
  route?: string;
  /** Answer with this HTTP status and {"error": error}… */
  status?: number;
  error?: string;
  /** …or with exactly this JSON body… */
  body?: unknown;
  /** …and these headers. */
  headers?: Record<string, string>;
  /** Keep the request waiting this long (Infinity: until the client gives up) … */
  hangMs?: number;
  /** … or until `release` lets it through (request-gate.ts) … */
  untilReleased?: boolean;
  /**
   * … before handling it ("before", the default: nothing happens), or after handling it ("after":
   * the status is created but the answer never arrives, as when a connection drops).
   */
  hangPhase?: "before" | "after";
  /**
   * The first `skip` matching requests are answered normally, and it applies from the next one on:
   * an interruption at the nth request that does not depend on when a test gets to set it.
   */
  skip?: number;
  /** Applies to the next `times` matching requests only; to all until cleared when not given. */
  times?: number;
}

export interface MastodonSandbox {
  url: string;
  accessToken: string;
  user: string;
  /** Statuses posted through POST /api/v1/statuses, oldest first. */
  readonly statuses: SandboxStatus[];
  /** Every upload, oldest first. */
  readonly media: SandboxMedia[];
  /** Boosts made through the API. */
  readonly reblogs: SandboxStatus[];
  /** Ids of statuses favourited through the API. */
  readonly favourites: string[];
  /** Every API and OAuth request, oldest first. */
  readonly requests: SandboxRequest[];
  /** Applications registered through POST /api/v1/apps, oldest first. */
  readonly apps: readonly SandboxApp[];
  /** Tokens issued through POST /oauth/token, oldest first (revoked ones keep their revokedAt). */
  readonly tokens: readonly SandboxToken[];
  /** Forgets every registered application, as Mastodon before 4.3 vacuumed unused ones. */
  forgetApps(): void;
  /**
   * A status by another account, to like, boost or reply to. With `remoteUrl` it stands for a status
   * of another server that this instance knows: found by that URL through search, as Mastodon finds
   * a federated status, but with a local id and no page here.
   */
  addStatus(text: string, options?: { username?: string; remoteUrl?: string }): SandboxStatus;
  setBehaviour(behaviour: SandboxBehaviour | null): void;
  /** Shorthand: answer `route` (POST /api/v1/statuses by default) with status and {"error": message}. */
  setFailure(status: number, message: string, route?: string): void;
  /** Shorthand: keep `route` requests waiting `ms` milliseconds (forever by default). */
  hang(ms?: number, route?: string): void;
  /**
   * Shorthand: keep `route` requests waiting until `release` lets them through, so that what a
   * client shows meanwhile lasts until the test has seen it.
   */
  holdUntilReleased(route?: string): void;
  /**
   * Lets `count` (1 unless given) requests held by holdUntilReleased (a behaviour's `untilReleased`)
   * through: those waiting, oldest first, then the next ones to come. Any new behaviour, and
   * clearBehaviour, lets every held request through.
   */
  release(count?: number): void;
  /**
   * Shorthand: answer `route` requests as Mastodon's rate limiter does once a limit is used up
   * (config/initializers/rack_attack.rb): 429, {"error": "Too many requests"}, and X-RateLimit-*
   * headers whose Reset is `resetAt` as an ISO time with microseconds.
   */
  rateLimit(resetAt: Date, route?: string, times?: number): void;
  /** Back to normal behaviour, keeping what was received. */
  clearBehaviour(): void;
  /** The one token accepted from now on, as when the owner authorises the app again. */
  setAccessToken(token: string): void;
  close(): Promise<void>;
}

/** Mastodon keeps an Idempotency-Key for an hour (PostStatusService). */
const idempotencyTtlMs = 60 * 60 * 1000;
const maxUploadBytes = 40 * 1024 * 1024;
const maxFormBytes = 1024 * 1024;

const validation = (what: string) => ({ error: `Validation failed: ${what}` });
/** config/locales/en.yml media_attachments.validations.not_ready, for a post and for an edit. */
const notProcessed = "Cannot attach files that have not finished processing. Try again in a moment!";
const recordNotFound = { error: "Record not found" };

export async function startMastodonSandbox(options: MastodonSandboxOptions): Promise<MastodonSandbox> {
  const user = options.user ?? "demo";
  const displayName = options.displayName ?? "Demo";
  const profile = softwareProfile(options.software ?? "mastodon");
  const characterLimit = options.characterLimit ?? profile.characterLimit;
  const maxMedia = profile.maxMedia;
  const maxDescription = options.altTextLimit ?? 1500;
  const sandboxName = options.name ?? "Sandbox Mastodon";
  let acceptedToken = options.accessToken;
  const oauth = createSandboxOAuth({
    metadata: options.oauthMetadata ?? (profile.oauthMetadata && options.instanceApi !== "v1"),
    ...(profile.scopes ? { scopes: profile.scopes } : {}),
    user,
    sandboxName,
    now: options.now ?? Date.now,
  });
  const accounts = new Map<string, { id: string; displayName: string }>([[user, { id: "1", displayName }]]);

  const statuses: SandboxStatus[] = [];
  const reblogs: SandboxStatus[] = [];
  const favourites: string[] = [];
  const media: SandboxMedia[] = [];
  const requests: SandboxRequest[] = [];
  const byId = new Map<string, SandboxStatus>();
  const mediaById = new Map<string, SandboxMedia>();
  /** Polls left before an "async" upload is processed. */
  const processing = new Map<string, number>();
  const idempotency = new Map<string, { statusId: string; expires: number }>();
  const clock = options.now ?? Date.now;
  let behaviour: SandboxBehaviour | null = null;
  let behaviourUses = 0;
  let behaviourSkipped = 0;
  const gate = requestGate();
  let nextId = 110_000_000_000_000_001n;
  const newId = () => (nextId++).toString();

  // The base URL is known only once the port is; handlers read it from here.
  let base = "";
  const host = () => new URL(base).host;

  function account(username: string) {
    const known = accounts.get(username) ?? { id: String(accounts.size + 1), displayName: username };
    accounts.set(username, known);
    return {
      id: known.id,
      username,
      acct: username,
      display_name: known.displayName,
      locked: false,
      bot: false,
      discoverable: true,
      group: false,
      created_at: "2024-01-01T00:00:00.000Z",
      note: "<p>An account of the local sandbox.</p>",
      url: `${base}/@${username}`,
      uri: `${base}/users/${username}`,
      avatar: `${base}/avatars/original/missing.png`,
      avatar_static: `${base}/avatars/original/missing.png`,
      header: `${base}/headers/original/missing.png`,
      header_static: `${base}/headers/original/missing.png`,
      followers_count: 0,
      following_count: 0,
      statuses_count: [...byId.values()].filter((status) => status.username === username && !status.reblogOf)
        .length,
      last_status_at: null,
      emojis: [],
      fields: [],
    };
  }

  function mediaEntity(item: SandboxMedia) {
    const ready = !processing.has(item.id);
    return {
      id: item.id,
      type: item.mimeType.startsWith("image/")
        ? "image"
        : item.mimeType.startsWith("video/")
          ? "video"
          : "unknown",
      url: ready ? item.url : null,
      preview_url: item.url,
      remote_url: null,
      preview_remote_url: null,
      text_url: null,
      meta: {},
      description: item.description,
      blurhash: null,
    };
  }

  function statusEntity(status: SandboxStatus): Record<string, unknown> {
    const replyTo = status.inReplyToId ? byId.get(status.inReplyToId) : undefined;
    return {
      id: status.id,
      created_at: status.createdAt,
      in_reply_to_id: status.inReplyToId,
      in_reply_to_account_id: replyTo ? account(replyTo.username).id : null,
      sensitive: false,
      spoiler_text: "",
      visibility: status.visibility,
      language: status.language,
      uri: status.uri,
      url: status.url,
      replies_count: [...byId.values()].filter((other) => other.inReplyToId === status.id).length,
      reblogs_count: reblogs.filter((reblog) => reblog.reblogOf?.id === status.id).length,
      favourites_count: status.favourited ? 1 : 0,
      edited_at: status.editedAt,
      favourited: status.favourited,
      reblogged: status.reblogged,
      muted: false,
      bookmarked: false,
      pinned: false,
      content: status.reblogOf ? "" : statusHtml(status.text, base),
      filtered: [],
      reblog: status.reblogOf ? statusEntity(status.reblogOf) : null,
      application: status.reblogOf ? null : { name: "possekit", website: null },
      account: account(status.username),
      media_attachments: status.media.map(mediaEntity),
      mentions: [],
      tags: hashtagsIn(status.text).map((name) => ({ name, url: `${base}/tags/${name.toLowerCase()}` })),
      emojis: [],
      card: null,
      poll: null,
      ...(profile.sourceField && !status.reblogOf ? { [profile.sourceField]: status.text } : {}),
    };
  }

  function createStatus(fields: {
    text: string;
    username: string;
    idempotencyKey?: string | undefined;
    media?: SandboxMedia[];
    inReplyToId?: string | null;
    visibility?: string;
    language?: string | null;
    contentType?: string | null;
    reblogOf?: SandboxStatus | null;
  }): SandboxStatus {
    const id = newId();
    const status: SandboxStatus = {
      id,
      url: fields.reblogOf
        ? `${base}/users/${fields.username}/statuses/${id}/activity`
        : `${base}${profile.statusPath(fields.username, id)}`,
      uri: fields.reblogOf
        ? `${base}/users/${fields.username}/statuses/${id}/activity`
        : `${base}/users/${fields.username}/statuses/${id}`,
      username: fields.username,
      text: fields.text,
      idempotencyKey: fields.idempotencyKey,
      media: fields.media ?? [],
      inReplyToId: fields.inReplyToId ?? null,
      visibility: fields.visibility ?? "public",
      language: fields.language ?? null,
      contentType: fields.contentType ?? null,
      createdAt: new Date().toISOString(),
      favourited: false,
      reblogged: false,
      reblogOf: fields.reblogOf ?? null,
      editedAt: null,
      deletedAt: null,
    };
    for (const item of status.media) item.statusId = id;
    byId.set(id, status);
    return status;
  }

  // --- request handling -------------------------------------------------------------------------

  type Params = URLSearchParams;
  type ApiAnswer = { status: number; body: unknown; headers?: Record<string, string> };

  function routeOf(method: string, path: string): string {
    return `${method} ${path.replace(/\/\d+(?=\/|$)/g, "/:id")}`;
  }

  function matchingBehaviour(route: string): SandboxBehaviour | null {
    if (!behaviour) return null;
    const wanted = behaviour.route ?? "POST /api/v1/statuses";
    if (wanted !== "*" && wanted !== route) return null;
    if (behaviourSkipped < (behaviour.skip ?? 0)) {
      behaviourSkipped++;
      return null;
    }
    if (behaviour.times !== undefined) {
      if (behaviourUses >= behaviour.times) return null;
      behaviourUses++;
    }
    return behaviour;
  }

  async function readParams(request: IncomingMessage): Promise<Params> {
    const body = await readBody(request, maxFormBytes);
    const type = request.headers["content-type"] ?? "";
    const text = body.toString("utf8");
    if (/^application\/json/i.test(type)) {
      const params = new URLSearchParams();
      const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      for (const [key, value] of Object.entries(json)) {
        if (Array.isArray(value))
          for (const item of value) {
            // A list of objects (media_attributes), as a form would name their fields: key[][field].
            if (item !== null && typeof item === "object")
              for (const [field, inner] of Object.entries(item))
                params.append(`${key}[][${field}]`, String(inner));
            else params.append(`${key}[]`, String(item));
          }
        else if (value !== null && value !== undefined) params.set(key, String(value));
      }
      return params;
    }
    const boundary = boundaryOf(type);
    if (boundary) {
      const params = new URLSearchParams();
      for (const [key, value] of parseMultipart(body, boundary).fields) params.append(key, value);
      return params;
    }
    return new URLSearchParams(text);
  }

  async function postStatus(request: IncomingMessage, token: string): Promise<ApiAnswer> {
    const params = await readParams(request);
    const idempotencyKey =
      profile.idempotency === "ignore" ? undefined : headerValue(request, "idempotency-key");
    if (idempotencyKey) {
      const known = idempotency.get(`${token}\n${idempotencyKey}`);
      if (profile.idempotency === "refuse") {
        // Pixelfed's statusCreate keeps the key (an hour) before it makes the status, and refuses
        // it again while kept: 400 {"error": "Duplicate idempotency key."} (Handler::render, JSON).
        if (known && known.expires > clock())
          return { status: 400, body: { error: "Duplicate idempotency key." } };
        idempotency.set(`${token}\n${idempotencyKey}`, {
          statusId: "",
          expires: clock() + idempotencyTtlMs,
        });
      } else {
        const existing = known && known.expires > clock() ? byId.get(known.statusId) : undefined;
        if (existing) return { status: 200, body: statusEntity(existing) };
      }
    }
    const mediaIds = [...params.getAll("media_ids[]"), ...params.getAll("media_ids")];
    if (profile.photoRequired && mediaIds.length === 0 && !params.get("in_reply_to_id"))
      return { status: 403, body: { error: "Empty statuses are not allowed" } };
    if (mediaIds.length > maxMedia)
      return { status: 422, body: { error: `Cannot attach more than ${maxMedia} files` } };
    // Like Mastodon, ids that are not this account's unattached uploads are left out.
    const attached = mediaIds
      .map((id) => mediaById.get(id))
      .filter((item): item is SandboxMedia => item !== undefined && item.statusId === null);
    if (attached.some((item) => processing.has(item.id))) {
      return {
        status: 422,
        body: { error: notProcessed },
      };
    }
    const inReplyToId = params.get("in_reply_to_id") || null;
    if (inReplyToId && !byId.has(inReplyToId)) return { status: 404, body: recordNotFound };
    const text = params.get("status") ?? "";
    if (!text.trim() && attached.length === 0)
      return { status: 422, body: validation("Text can't be blank") };
    if (statusLength(text) > characterLimit) {
      return { status: 422, body: validation(`Text character limit of ${characterLimit} exceeded`) };
    }
    const visibility = params.get("visibility") || "public";
    if (!["public", "unlisted", "private", "direct"].includes(visibility)) {
      return { status: 422, body: validation("Visibility is not included in the list") };
    }
    const language = params.get("language") || null;
    if (language && !/^[a-z]{2,3}$/.test(language)) {
      return { status: 422, body: validation("Language is not a valid ISO 639 code") };
    }
    const status = createStatus({
      text,
      username: user,
      idempotencyKey,
      media: attached,
      inReplyToId,
      visibility,
      language,
      contentType: params.get("content_type"),
    });
    statuses.push(status);
    if (idempotencyKey) {
      idempotency.set(`${token}\n${idempotencyKey}`, {
        statusId: status.id,
        expires: clock() + idempotencyTtlMs,
      });
    }
    return { status: 200, body: statusEntity(status) };
  }

  async function uploadMedia(request: IncomingMessage, version: "v1" | "v2"): Promise<ApiAnswer> {
    const boundary = boundaryOf(request.headers["content-type"]);
    if (!boundary) return { status: 422, body: validation("File can't be blank") };
    const form = parseMultipart(await readBody(request, maxUploadBytes), boundary);
    const file = form.files.find((candidate) => candidate.field === "file");
    if (!file || file.data.length === 0) return { status: 422, body: validation("File can't be blank") };
    if (!/^(image|video|audio)\//.test(file.contentType)) {
      return { status: 422, body: validation("File content type is invalid") };
    }
    const description = form.fields.get("description") ?? null;
    if (description && description.length > maxDescription) {
      return {
        status: 422,
        body: validation(`Description is too long (maximum is ${maxDescription} characters)`),
      };
    }
    const id = newId();
    const filename = file.filename.replace(/[^\w.-]+/g, "_") || "file";
    const item: SandboxMedia = {
      id,
      description,
      mimeType: file.contentType,
      filename,
      size: file.data.length,
      bytes: file.data,
      url: `${base}/system/media_attachments/files/${id}/original/${encodeURIComponent(filename)}`,
      statusId: null,
    };
    media.push(item);
    mediaById.set(id, item);
    if (version === "v2" && options.mediaProcessing === "async") {
      processing.set(id, 1);
      return { status: 202, body: mediaEntity(item) };
    }
    return { status: 200, body: mediaEntity(item) };
  }

  function getMedia(id: string): ApiAnswer {
    const item = mediaById.get(id);
    if (!item) return { status: 404, body: recordNotFound };
    const pollsLeft = processing.get(id);
    if (pollsLeft !== undefined) {
      if (pollsLeft > 0) {
        processing.set(id, pollsLeft - 1);
        return { status: 206, body: mediaEntity(item) };
      }
      processing.delete(id);
    }
    return { status: 200, body: mediaEntity(item) };
  }

  function favourite(id: string): ApiAnswer {
    const status = byId.get(id);
    if (!status) return { status: 404, body: recordNotFound };
    if (!status.favourited) favourites.push(id);
    status.favourited = true;
    return { status: 200, body: statusEntity(status) };
  }

  function reblog(id: string): ApiAnswer {
    const original = byId.get(id);
    if (!original) return { status: 404, body: recordNotFound };
    const target = original.reblogOf ?? original;
    // Boosting twice returns the first boost, as Mastodon does.
    const existing = reblogs.find((item) => item.reblogOf?.id === target.id);
    if (existing) return { status: 200, body: statusEntity(existing) };
    target.reblogged = true;
    const wrapper = createStatus({ text: "", username: user, reblogOf: target });
    reblogs.push(wrapper);
    return { status: 200, body: statusEntity(wrapper) };
  }

  /** The signed-in account's status with this id, as Status.where(account_id: …).find does. */
  function ownStatus(id: string): SandboxStatus | undefined {
    const status = byId.get(id);
    return status && status.username === user && !status.reblogOf ? status : undefined;
  }

  /**
   * PUT /api/v1/statuses/:id (app/services/update_status_service.rb): new text, the media it names
   * in that order (validate_media!: this status's own or unattached uploads, others left out; none
   * named detaches them all, as the controller always passes media_ids), each with its
   * media_attributes description (update_media_attachments!), answered with the edited status. An
   * upload still processing is refused as when posting (validate_media!'s not_ready, a 422). The
   * other servers' edits differ as SoftwareProfile.statusEdit says, each from its source.
   */
  async function editStatus(request: IncomingMessage, id: string): Promise<ApiAnswer> {
    const status = ownStatus(id);
    if (!status) return { status: 404, body: recordNotFound };
    const json = /^application\/json/i.test(request.headers["content-type"] ?? "");
    const params = await readParams(request);
    const mediaIds = [...params.getAll("media_ids[]"), ...params.getAll("media_ids")];
    const text = params.get("status") ?? "";
    const edit = profile.statusEdit;
    const attachable = (item: SandboxMedia | undefined): item is SandboxMedia =>
      item !== undefined && (item.statusId === null || item.statusId === id);
    if (edit === "gotosocial") {
      // validateStatusContent, then processMedia: each id the account's, unattached or this status's.
      if (!text.trim() && mediaIds.length === 0)
        return { status: 400, body: { error: "Bad Request: status contains no text, media or poll" } };
      if (mediaIds.length > maxMedia)
        return { status: 400, body: { error: `Bad Request: media files exceed max count (${maxMedia})` } };
      const missing = mediaIds.find((mediaId) => !mediaById.has(mediaId));
      if (missing) return { status: 400, body: { error: `Bad Request: media not found: ${missing}` } };
      const elsewhere = mediaIds.find((mediaId) => !attachable(mediaById.get(mediaId)));
      if (elsewhere)
        return {
          status: 400,
          body: { error: `Bad Request: media already attached to status: ${elsewhere}` },
        };
    } else if (edit === "pixelfed") {
      // StoreStatusEditRequest: media_ids required without status, each findOrFail'd (a 404).
      if (!text.trim() && mediaIds.length === 0)
        return {
          status: 422,
          body: { message: "The media ids field is required when status is not present." },
        };
      if (mediaIds.some((mediaId) => !attachable(mediaById.get(mediaId))))
        return { status: 404, body: { error: "Record not found" } };
    } else if (mediaIds.length > maxMedia) {
      return { status: 422, body: { error: "Cannot attach more than 4 files" } };
    }
    const named = mediaIds.map((mediaId) => mediaById.get(mediaId)).filter(attachable);
    if (named.some((item) => processing.has(item.id))) return { status: 422, body: { error: notProcessed } };
    let attached: SandboxMedia[];
    if (edit === "pixelfed") {
      // updateMediaAttachements: a status of one photo (or none) keeps it; an album keeps only
      // the media it held that are named, in the order named; a new id is never attached.
      attached =
        status.media.length <= 1 ? status.media : named.filter((item) => status.media.includes(item));
    } else {
      attached = named;
      if (edit === "mastodon" && !text.trim() && attached.length === 0)
        return { status: 422, body: validation("Text can't be blank") };
      if (edit === "pleroma" && !text.trim() && attached.length === 0)
        return { status: 422, body: { error: "Cannot post an empty status without attachments" } };
    }
    if (statusLength(text) > characterLimit)
      return { status: 422, body: validation(`Text character limit of ${characterLimit} exceeded`) };
    // Descriptions come with the edit on Mastodon (form fields) and GoToSocial (JSON only).
    const readsAttributes = edit === "mastodon" || (edit === "gotosocial" && json);
    const attributeIds = readsAttributes ? params.getAll("media_attributes[][id]") : [];
    const descriptions = params.getAll("media_attributes[][description]");
    for (const [index, mediaId] of attributeIds.entries()) {
      const item = attached.find((candidate) => candidate.id === mediaId);
      if (!item && edit === "gotosocial")
        return { status: 400, body: { error: `Bad Request: media not found: ${mediaId}` } };
      const description = descriptions[index];
      if (!item || description === undefined) continue;
      if (description.length > maxDescription)
        return {
          status: 422,
          body: validation(`Description is too long (maximum is ${maxDescription} characters)`),
        };
      item.description = description || null;
    }
    for (const item of status.media) if (!attached.includes(item)) item.statusId = null;
    for (const item of attached) item.statusId = id;
    status.media = attached;
    status.text = text;
    const language = params.get("language");
    if (language) status.language = language;
    status.editedAt = new Date().toISOString();
    return { status: 200, body: statusEntity(status) };
  }

  /**
   * PUT /api/v1/media/:id: a new description. Mastodon changes only media not yet attached (404
   * otherwise); Pleroma, Akkoma, Pixelfed and GoToSocial any of the account's (SoftwareProfile).
   */
  async function describeMedia(request: IncomingMessage, id: string): Promise<ApiAnswer> {
    const item = mediaById.get(id);
    if (!item || (profile.mediaUpdate === "unattached" && item.statusId !== null))
      return { status: 404, body: recordNotFound };
    const params = await readParams(request);
    const description = params.get("description");
    if (description !== null) {
      if (description.length > maxDescription)
        return {
          status: 422,
          body: validation(`Description is too long (maximum is ${maxDescription} characters)`),
        };
      item.description = description || null;
    }
    return { status: 200, body: mediaEntity(item) };
  }

  /** DELETE /api/v1/statuses/:id: answered with the status and its source text, for a redraft. */
  function deleteStatus(id: string): ApiAnswer {
    const status = ownStatus(id);
    if (!status) return { status: 404, body: recordNotFound };
    const body = { ...statusEntity(status), text: status.text };
    status.deletedAt = new Date().toISOString();
    byId.delete(id);
    return { status: 200, body };
  }

  function unfavourite(id: string): ApiAnswer {
    const status = byId.get(id);
    if (!status) return { status: 404, body: recordNotFound };
    status.favourited = false;
    const at = favourites.indexOf(id);
    if (at >= 0) favourites.splice(at, 1);
    return { status: 200, body: statusEntity(status) };
  }

  /** Undoes this account's boost of the status, if any, and answers with the status. */
  function unreblog(id: string): ApiAnswer {
    const original = byId.get(id);
    if (!original) return { status: 404, body: recordNotFound };
    const target = original.reblogOf ?? original;
    const at = reblogs.findIndex((item) => item.reblogOf?.id === target.id);
    if (at >= 0) {
      const [wrapper] = reblogs.splice(at, 1);
      if (wrapper) byId.delete(wrapper.id);
    }
    target.reblogged = false;
    return { status: 200, body: statusEntity(target) };
  }

  /**
   * GET /api/v1/statuses/:id/context (Api::V1::StatusesController#context): the statuses it answers
   * (ancestors, oldest first) and those that answer it (descendants, depth first in the order they
   * were made, as Status#descendants walks the reply tree). Every status here is public.
   */
  function context(id: string): ApiAnswer {
    const status = byId.get(id);
    if (!status) return { status: 404, body: recordNotFound };
    const ancestors: SandboxStatus[] = [];
    for (let parent = status.inReplyToId ? byId.get(status.inReplyToId) : undefined; parent; ) {
      ancestors.unshift(parent);
      parent = parent.inReplyToId ? byId.get(parent.inReplyToId) : undefined;
    }
    const descendants: SandboxStatus[] = [];
    const walk = (parentId: string) => {
      for (const reply of [...byId.values()].filter((other) => other.inReplyToId === parentId)) {
        descendants.push(reply);
        walk(reply.id);
      }
    };
    walk(status.id);
    return {
      status: 200,
      body: { ancestors: ancestors.map(statusEntity), descendants: descendants.map(statusEntity) },
    };
  }

  function search(params: Params, authorized: boolean): ApiAnswer {
    if (params.get("resolve") === "true" && !authorized) {
      return {
        status: 401,
        body: {
          error: "Search queries that resolve remote resources are not supported without authentication",
        },
      };
    }
    const query = (params.get("q") ?? "").trim().replace(/\/+$/, "");
    const type = params.get("type");
    const found = [...byId.values()].filter((status) => status.url === query || status.uri === query);
    return {
      status: 200,
      body: {
        accounts: [],
        statuses: type && type !== "statuses" ? [] : found.slice(0, 1).map(statusEntity),
        hashtags: [],
      },
    };
  }

  async function api(request: IncomingMessage, url: URL, token: string | undefined): Promise<ApiAnswer> {
    const method = request.method ?? "GET";
    const path = url.pathname.replace(/\/+$/, "");
    const authorized = token !== undefined;
    const id = /\/(\d+)(?:\/\w+)?$/.exec(path)?.[1] ?? "";

    const instanceApi = options.instanceApi ?? "v2";
    if (method === "GET" && path === "/api/v2/instance" && instanceApi === "v2" && profile.instanceV2) {
      return { status: 200, body: instanceV2() };
    }
    if (method === "GET" && path === "/api/v1/instance") {
      return {
        status: 200,
        body: {
          uri: host(),
          title: sandboxName,
          version: instanceApi === "v2" || profile.nodeInfoName !== "mastodon" ? profile.version : "3.5.3",
          // Pleroma's and Akkoma's own field (instance_view.ex), besides configuration.
          ...(profile.nodeInfoName === "akkoma" || profile.nodeInfoName === "pleroma"
            ? { max_toot_chars: characterLimit, description_limit: maxDescription }
            : {}),
          configuration: {
            statuses: {
              max_characters: characterLimit,
              max_media_attachments: maxMedia,
              characters_reserved_per_url: 23,
            },
            media_attachments: { image_size_limit: 16777216 },
          },
        },
      };
    }
    if (method === "GET" && path === "/api/v2/search") return search(url.searchParams, authorized);
    if (method === "GET" && /^\/api\/v1\/statuses\/\d+$/.test(path)) {
      const status = byId.get(id);
      return status ? { status: 200, body: statusEntity(status) } : { status: 404, body: recordNotFound };
    }
    if (method === "GET" && /^\/api\/v1\/statuses\/\d+\/context$/.test(path)) return context(id);

    // Everything below acts as the signed-in user.
    if (!token) return { status: 401, body: { error: "The access token is invalid" } };
    if (method === "GET" && path === "/api/v1/accounts/verify_credentials") {
      return {
        status: 200,
        body: { ...account(user), source: { privacy: "public", sensitive: false, note: "" } },
      };
    }
    if (method === "POST" && path === "/api/v1/statuses") return postStatus(request, token);
    if (method === "GET" && /^\/api\/v1\/accounts\/\d+\/statuses$/.test(path))
      return accountStatuses(/\/accounts\/(\d+)\//.exec(path)?.[1] ?? "", url.searchParams);
    if (method === "POST" && path === "/api/v2/media") return uploadMedia(request, "v2");
    if (method === "POST" && path === "/api/v1/media") return uploadMedia(request, "v1");
    if (method === "GET" && /^\/api\/v1\/media\/\d+$/.test(path)) return getMedia(id);
    if (method === "PUT" && /^\/api\/v1\/media\/\d+$/.test(path)) return describeMedia(request, id);
    if (method === "POST" && /^\/api\/v1\/statuses\/\d+\/favourite$/.test(path)) return favourite(id);
    if (method === "POST" && /^\/api\/v1\/statuses\/\d+\/reblog$/.test(path)) return reblog(id);
    if (method === "POST" && /^\/api\/v1\/statuses\/\d+\/unfavourite$/.test(path)) return unfavourite(id);
    if (method === "POST" && /^\/api\/v1\/statuses\/\d+\/unreblog$/.test(path)) return unreblog(id);
    if (method === "PUT" && /^\/api\/v1\/statuses\/\d+$/.test(path)) return editStatus(request, id);
    if (method === "DELETE" && /^\/api\/v1\/statuses\/\d+$/.test(path)) return deleteStatus(id);
    return { status: 404, body: { error: "Record not found" } };
  }

  /**
   * GET /api/v1/accounts/:id/statuses: the account's statuses, newest first, `limit` of them (20 by
   * default, 40 at most: Api::V1::Accounts::StatusesController), boosts left out on exclude_reblogs.
   */
  function accountStatuses(accountId: string, params: Params): ApiAnswer {
    const username = [...accounts.entries()].find(([, known]) => known.id === accountId)?.[0];
    if (!username) return { status: 404, body: recordNotFound };
    const limit = Math.min(Number(params.get("limit")) || 20, 40);
    const own = [...byId.values()]
      .filter((status) => status.username === username)
      .filter((status) => params.get("exclude_reblogs") !== "true" || !status.reblogOf)
      .reverse()
      .slice(0, limit);
    return { status: 200, body: own.map(statusEntity) };
  }

  /** The parts of Mastodon 4.4's instance entity a client reads (REST::InstanceSerializer). */
  function instanceV2() {
    return {
      domain: host(),
      title: sandboxName,
      version: profile.version,
      source_url: "https://github.com/mastodon/mastodon",
      description: "A local Mastodon-compatible sandbox.",
      languages: ["en"],
      configuration: {
        urls: { streaming: base.replace(/^http/, "ws") },
        accounts: { max_featured_tags: 10, max_pinned_statuses: 5 },
        statuses: {
          max_characters: characterLimit,
          max_media_attachments: maxMedia,
          characters_reserved_per_url: 23,
        },
        media_attachments: {
          supported_mime_types: ["image/jpeg", "image/png", "image/gif", "image/webp"],
          description_limit: maxDescription,
          image_size_limit: 16777216,
          image_matrix_limit: 33177600,
          video_size_limit: 103809024,
          video_frame_rate_limit: 120,
          video_matrix_limit: 8294400,
        },
        polls: {
          max_options: 4,
          max_characters_per_option: 50,
          min_expiration: 300,
          max_expiration: 2629746,
        },
        translation: { enabled: false },
      },
      registrations: { enabled: false, approval_required: false, message: null },
      contact: { email: "", account: null },
      rules: [],
    };
  }

  function pageStatus(status: SandboxStatus): PageStatus {
    const replyTo = status.inReplyToId ? byId.get(status.inReplyToId) : undefined;
    return {
      url: status.url,
      username: status.username,
      displayName: accounts.get(status.username)?.displayName ?? status.username,
      contentHtml: statusHtml(status.text, base),
      createdAt: status.createdAt,
      media: status.media.map((item) => ({ url: item.url, description: item.description })),
      favourited: status.favourited,
      reblogged: status.reblogged,
      ...(replyTo ? { inReplyToUrl: replyTo.url } : {}),
    };
  }

  function web(request: IncomingMessage, response: ServerResponse, url: URL): void {
    const path = decodeURIComponent(url.pathname).replace(/\/+$/, "") || "/";
    const visible = () =>
      [...byId.values()]
        .filter((status) => !status.reblogOf)
        .reverse()
        .map(pageStatus);
    if (request.method !== "GET" && request.method !== "HEAD") {
      sendJson(response, 405, { error: "This sandbox page only answers GET" });
      return;
    }
    if (path === "/") {
      sendHtml(response, 200, timelinePage(sandboxName, host(), visible(), "Local timeline"));
      return;
    }
    const shown = [...byId.values()].find(
      (candidate) => !candidate.reblogOf && new URL(candidate.url).pathname === path,
    );
    if (shown && profile.nodeInfoName !== "mastodon") {
      sendHtml(response, 200, statusPage(sandboxName, host(), pageStatus(shown)));
      return;
    }
    const file = /^\/system\/media_attachments\/files\/(\d+)\/original\/[^/]+$/.exec(path);
    if (file) {
      const item = mediaById.get(file[1] ?? "");
      if (!item) {
        sendHtml(response, 404, notFoundPage(sandboxName));
        return;
      }
      response.writeHead(200, { "content-type": item.mimeType, "content-length": item.size });
      response.end(item.bytes);
      return;
    }
    const activity = /^\/users\/(\w+)\/statuses\/(\d+)$/.exec(path);
    if (activity) {
      response.writeHead(302, { location: `${base}/@${activity[1]}/${activity[2]}` });
      response.end();
      return;
    }
    const statusMatch = /^\/@(\w+)\/(\d+)$/.exec(path);
    const status = statusMatch ? byId.get(statusMatch[2] ?? "") : undefined;
    if (statusMatch && status && !status.reblogOf && status.username === statusMatch[1]) {
      sendHtml(response, 200, statusPage(sandboxName, host(), pageStatus(status)));
      return;
    }
    const profilePage = /^\/@(\w+)$/.exec(path);
    if (profilePage && accounts.has(profilePage[1] ?? "")) {
      const username = profilePage[1] ?? "";
      const own = visible().filter((item) => item.username === username);
      sendHtml(response, 200, timelinePage(sandboxName, host(), own, `@${username}@${host()}`));
      return;
    }
    sendHtml(response, 404, notFoundPage(sandboxName));
  }

  /** NodeInfo (nodeinfo.diaspora.software/protocol): the well-known links, then the document. */
  function nodeInfo(response: ServerResponse, path: string): boolean {
    if (path === "/.well-known/nodeinfo") {
      sendJson(response, 200, {
        links: [
          { rel: "http://nodeinfo.diaspora.software/ns/schema/2.0", href: `${base}${profile.nodeInfoPath}` },
        ],
      });
      return true;
    }
    if (path !== profile.nodeInfoPath) return false;
    sendJson(response, 200, {
      version: "2.0",
      software: { name: profile.nodeInfoName, version: profile.version },
      protocols: ["activitypub"],
      services: { inbound: [], outbound: [] },
      openRegistrations: false,
      usage: { users: { total: accounts.size } },
      metadata: {},
    });
    return true;
  }

  /** Deletions counted per window of the deletion limit: the window's number and the count. */
  const deletions = { window: -1, count: 0 };
  const deletionPeriodSeconds = 30 * 60;

  /**
   * Rack::Attack's throttle_api_delete, for the one account here: each DELETE of a status or undone
   * boost is counted in a fixed window of 30 minutes (Rack::Attack::Cache#count keys the counter
   * by now / period), the throttled ones too; past the limit the answer is the throttled_responder's
   * 429 with X-RateLimit-Limit, X-RateLimit-Remaining 0 and X-RateLimit-Reset, the window's end
   * (now + period - now % period) as an ISO time with microseconds. The headers, undefined when the
   * request passes.
   */
  function deletionThrottle(method: string, path: string): Record<string, string> | undefined {
    const deletes =
      (method === "DELETE" && /^\/api\/v1\/statuses\/\d+$/.test(path)) ||
      (method === "POST" && /^\/api\/v1\/statuses\/\d+\/unreblog$/.test(path));
    if (!deletes) return undefined;
    const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
    const window = Math.floor(nowSeconds / deletionPeriodSeconds);
    if (window !== deletions.window) {
      deletions.window = window;
      deletions.count = 0;
    }
    deletions.count += 1;
    const limit = options.deletionLimit ?? 30;
    if (deletions.count <= limit) return undefined;
    const reset = new Date(
      (nowSeconds + deletionPeriodSeconds - (nowSeconds % deletionPeriodSeconds)) * 1000,
    );
    return {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": reset.toISOString().replace(/(\.\d{3})Z$/, "$1000Z"),
    };
  }

  /** The scopes a token holds: the configured token is one made with "read write follow push". */
  function grantedScopes(presented: string | undefined): string[] | undefined {
    if (presented === undefined) return undefined;
    if (sameSecret(presented, acceptedToken)) return ["read", "write", "follow", "push"];
    const issued = oauth.tokenFor(presented);
    return issued && issued.user !== null ? issued.scopes : undefined;
  }

  /** Keeps a request waiting as its behaviour says: false when its client gave up meanwhile. */
  function held(special: SandboxBehaviour, response: ServerResponse): Promise<boolean> {
    if (special.hangMs !== undefined) return hold(response, special.hangMs);
    if (special.untilReleased) return gate.pass(response);
    return Promise.resolve(true);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", base);
    const method = request.method ?? "GET";
    const oauthPath = /^\/(oauth\/|\.well-known\/oauth-authorization-server|api\/v1\/apps\/?$)/.test(
      url.pathname,
    );
    if (oauthPath) {
      requests.push({ method, path: url.pathname, idempotencyKey: undefined, authorized: false });
      // A behaviour set for an OAuth route ("POST /oauth/token") answers in its place.
      const special = matchingBehaviour(`${method} ${url.pathname.replace(/\/+$/, "")}`);
      if (special && (special.status !== undefined || special.body !== undefined)) {
        request.resume();
        sendJson(
          response,
          special.status ?? 500,
          special.body ?? { error: special.error ?? "Sandbox failure" },
        );
        return;
      }
      try {
        if (await oauth.handle(request, response, url)) return;
      } catch (error) {
        if (error instanceof BodyTooLargeError) sendJson(response, 413, { error: error.message });
        else if (error instanceof SyntaxError)
          sendJson(response, 400, { error: "The request body is not valid JSON" });
        else throw error;
        return;
      }
    }
    if (nodeInfo(response, url.pathname)) return;
    if (!url.pathname.startsWith("/api/")) {
      web(request, response, url);
      return;
    }
    const presented = bearerToken(request);
    const granted = grantedScopes(presented);
    const authorized = granted !== undefined;
    requests.push({
      method,
      path: url.pathname,
      idempotencyKey: headerValue(request, "idempotency-key"),
      authorized,
      ...(request.headers["content-type"] ? { contentType: request.headers["content-type"] } : {}),
    });

    if (presented !== undefined && !authorized) {
      sendJson(response, 401, { error: "The access token is invalid" });
      return;
    }
    const needed = scopesFor(method, url.pathname.replace(/\/+$/, ""));
    if (granted && needed && !scopesReach(granted, needed)) {
      request.resume();
      sendJson(response, 403, { error: "This action is outside the authorized scopes" });
      return;
    }
    if (options.latencyMs && !(await hold(response, options.latencyMs))) return;
    const throttled = authorized ? deletionThrottle(method, url.pathname) : undefined;
    if (throttled) {
      request.resume();
      sendJson(response, 429, { error: "Too many requests" }, throttled);
      return;
    }

    const special = matchingBehaviour(routeOf(method, url.pathname.replace(/\/+$/, "")));
    const phase = special?.hangPhase ?? "before";
    if (special && phase === "before" && !(await held(special, response))) return;
    if (special && (special.status !== undefined || special.body !== undefined) && phase === "before") {
      request.resume();
      sendJson(
        response,
        special.status ?? 500,
        special.body ?? { error: special.error ?? "Sandbox failure" },
        special.headers,
      );
      return;
    }

    let answer: ApiAnswer;
    try {
      answer = await api(request, url, authorized ? presented : undefined);
    } catch (error) {
      if (error instanceof BodyTooLargeError) answer = { status: 413, body: { error: error.message } };
      else if (error instanceof SyntaxError)
        answer = { status: 400, body: { error: "The request body is not valid JSON" } };
      else throw error;
    }
    if (special && phase === "after" && !(await held(special, response))) return;
    sendJson(response, answer.status, answer.body, answer.headers);
  }

  const running = await listen(handle, options.port ?? 0, options.host ?? "127.0.0.1");
  base = running.url;
  oauth.setBase(base);

  const setBehaviour = (next: SandboxBehaviour | null) => {
    // Requests held by the behaviour it replaces are not left waiting for a release that never comes.
    gate.reset();
    behaviour = next;
    behaviourUses = 0;
    behaviourSkipped = 0;
  };

  return {
    url: running.url,
    accessToken: options.accessToken,
    user,
    statuses,
    media,
    reblogs,
    favourites,
    requests,
    apps: oauth.apps,
    tokens: oauth.tokens,
    forgetApps: oauth.forgetApps,
    addStatus(text, { username = "someone", remoteUrl } = {}) {
      if (!/^\w+$/.test(username)) throw new Error(`"${username}" is not a Mastodon user name`);
      account(username);
      const status = createStatus({ text, username });
      if (remoteUrl) {
        status.url = remoteUrl;
        status.uri = remoteUrl;
      }
      return status;
    },
    setBehaviour,
    setFailure(status, message, route = "POST /api/v1/statuses") {
      setBehaviour({ route, status, error: message });
    },
    hang(ms = Number.POSITIVE_INFINITY, route = "POST /api/v1/statuses") {
      setBehaviour({ route, hangMs: ms });
    },
    holdUntilReleased(route = "POST /api/v1/statuses") {
      setBehaviour({ route, untilReleased: true });
    },
    release(count = 1) {
      gate.release(count);
    },
    rateLimit(resetAt, route = "POST /api/v1/statuses", times) {
      setBehaviour({
        route,
        status: 429,
        error: "Too many requests",
        headers: {
          "x-ratelimit-limit": "300",
          "x-ratelimit-remaining": "0",
          "x-ratelimit-reset": resetAt.toISOString().replace(/(\.\d{3})Z$/, "$1000Z"),
        },
        ...(times === undefined ? {} : { times }),
      });
    },
    clearBehaviour() {
      setBehaviour(null);
    },
    setAccessToken(token) {
      acceptedToken = token;
    },
    close: running.close,
  };
}

/**
 * The scopes an API call needs, one of which the token must hold: the doorkeeper_authorize! (or
 * authorize_if_got_token!, checked only when a token is sent) of each controller in
 * app/controllers/api/ of Mastodon 4.4. undefined: the call needs no scope (public).
 */
function scopesFor(method: string, path: string): string[] | undefined {
  if (path === "/api/v1/accounts/verify_credentials") return ["profile", "read", "read:accounts"];
  if (path === "/api/v2/search") return ["read", "read:search"];
  if (/^\/api\/v1\/accounts\/\d+\/statuses$/.test(path)) return ["read", "read:statuses"];
  if (/^\/api\/v[12]\/media(\/\d+)?$/.test(path)) return ["write", "write:media"];
  if (/^\/api\/v1\/statuses\/\d+\/(un)?favourite$/.test(path)) return ["write", "write:favourites"];
  if (/^\/api\/v1\/statuses\/\d+\/(un)?reblog$/.test(path)) return ["write", "write:statuses"];
  if (method === "GET" && /^\/api\/v1\/statuses\/\d+(\/context)?$/.test(path))
    return ["read", "read:statuses"];
  if (/^\/api\/v1\/statuses(\/\d+)?$/.test(path)) return ["write", "write:statuses"];
  return undefined;
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
