// How the sandbox answers when it stands for a server other than Mastodon that speaks Mastodon's
// API: Pixelfed, GoToSocial, Akkoma or Pleroma. Each difference is the one the server's source
// says; the file is named beside it (pixelfed/pixelfed, superseriousbusiness/gotosocial, and
// Pleroma's lib/pleroma/web/…, which Akkoma keeps). What is not listed answers as Mastodon does.
// One simplification: ids stay numbers here (GoToSocial's are ULIDs, Akkoma's flake ids), as the
// client treats every id as an opaque string.

export type SandboxSoftware = "mastodon" | "pixelfed" | "gotosocial" | "akkoma" | "pleroma";

export interface SoftwareProfile {
  /** /api/v1/instance's `version`. */
  version: string;
  /** NodeInfo's software.name, and where its 2.0 document is. */
  nodeInfoName: string;
  nodeInfoPath: string;
  /** Whether /api/v2/instance is answered (else 404). */
  instanceV2: boolean;
  /** Whether /.well-known/oauth-authorization-server is answered (RFC 8414). */
  oauthMetadata: boolean;
  /** The scopes an application may register and a token may hold; undefined: Mastodon's. */
  scopes?: readonly string[];
  /**
   * What a repeated Idempotency-Key gets: "replay" the first status (Mastodon's PostStatusService,
   * Pleroma's Pleroma.Web.Plugs.IdempotencyPlug), "refuse" 400 (Pixelfed), "ignore" a new status
   * (GoToSocial).
   */
  idempotency: "replay" | "refuse" | "ignore";
  /** A status without media (and not a reply) is refused: Pixelfed's 403. */
  photoRequired: boolean;
  /** The status's page. */
  statusPath: (username: string, id: string) => string;
  /** The source text field in a status the account made: GoToSocial `text`, Pixelfed `content_text`. */
  sourceField?: "text" | "content_text";
  /**
   * What PUT /api/v1/statuses/:id does with media (decision 0060):
   * - "mastodon": attaches the media_ids named, in order, detaches the rest; descriptions from the
   *   form's media_attributes[][id] and [description] (UpdateStatusService).
   * - "gotosocial": the same, but media_attributes only as JSON (StatusEditRequest binds the form
   *   key `media_attributes[]`), and an id it cannot attach, or an attribute for media not attached,
   *   is a 400 "Bad Request: media not found: …" (internal/processing/status/edit.go, common.go).
   * - "pleroma": attachments are the media_ids named, each with the description it has now; no
   *   media_attributes (CommonAPI.update, ActivityDraft, StatusUpdateRequest).
   * - "pixelfed": UpdateStatusService::updateMediaAttachements: one photo or none stays as it is;
   *   an album drops the media not named and is reordered, a new id is never attached; no
   *   descriptions (StoreStatusEditRequest has no media_attributes).
   */
  statusEdit: "mastodon" | "gotosocial" | "pleroma" | "pixelfed";
  /**
   * Which media PUT /api/v1/media/:id changes: "unattached" only (Mastodon's MediaController,
   * current_account.media_attachments.where(status_id: nil)) or any of the account's ("own":
   * Pleroma's MediaController.update, Pixelfed's ApiV1Controller::mediaUpdate, GoToSocial's
   * internal/processing/media/update.go, which check the owner only).
   */
  mediaUpdate: "unattached" | "own";
  /** Defaults when the sandbox is not given its own limits. */
  characterLimit: number;
  maxMedia: number;
}

const profiles: Record<SandboxSoftware, SoftwareProfile> = {
  mastodon: {
    version: "4.4.0 (compatible; possekit sandbox)",
    nodeInfoName: "mastodon",
    // app/controllers/well_known/node_info_controller.rb: /nodeinfo/2.0
    nodeInfoPath: "/nodeinfo/2.0",
    instanceV2: true,
    oauthMetadata: true,
    idempotency: "replay",
    photoRequired: false,
    statusPath: (username, id) => `/@${username}/${id}`,
    statusEdit: "mastodon",
    mediaUpdate: "unattached",
    characterLimit: 500,
    maxMedia: 4,
  },
  pixelfed: {
    // ApiV1Controller::instance: '3.5.3 (compatible; Pixelfed '.config('pixelfed.version').')'
    version: "3.5.3 (compatible; Pixelfed 0.12.4)",
    // routes/api.php: api/nodeinfo/2.0.json (FederationController@nodeinfo), name "pixelfed".
    nodeInfoName: "pixelfed",
    nodeInfoPath: "/api/nodeinfo/2.0.json",
    // routes/api.php: api/v2/instance (ApiV2Controller@instance).
    instanceV2: true,
    // Laravel Passport publishes no RFC 8414 metadata.
    oauthMetadata: false,
    // AuthServiceProvider's Passport::tokensCan: read, write, follow, push.
    scopes: ["read", "write", "follow", "push"],
    // ApiV1Controller::statusCreate: Cache::has($key) → abort(400, 'Duplicate idempotency key.').
    idempotency: "refuse",
    // statusCreate: no media_ids and no in_reply_to_id → abort(403, 'Empty statuses are not allowed').
    photoRequired: true,
    // Status::url(): /p/{username}/{id}
    statusPath: (username, id) => `/p/${username}/${id}`,
    // StatusTransformer: 'content_text' => $status->caption
    sourceField: "content_text",
    // config/pixelfed.php: max_caption_length 500, max_album_length 4.
    statusEdit: "pixelfed",
    mediaUpdate: "own",
    characterLimit: 500,
    maxMedia: 4,
  },
  gotosocial: {
    // config.GetSoftwareVersion(): the bare version (internal/typeutils/internaltofrontend.go).
    version: "0.20.0",
    // internal/processing/fedi/wellknown.go: nodeInfoSoftwareName "gotosocial", /nodeinfo/2.0.
    nodeInfoName: "gotosocial",
    nodeInfoPath: "/nodeinfo/2.0",
    instanceV2: true,
    oauthMetadata: false,
    scopes: ["read", "write", "follow", "push", "admin"],
    // Idempotency-Key appears only in internal/middleware/cors.go's allowed headers.
    idempotency: "ignore",
    photoRequired: false,
    // internal/uris/uri.go: /@{username}/statuses/{id}
    statusPath: (username, id) => `/@${username}/statuses/${id}`,
    // apimodel.Status.Text: the plain-text source.
    sourceField: "text",
    // internal/config/defaults.go: StatusesMaxChars 5000, StatusesMediaMaxFiles 6.
    statusEdit: "gotosocial",
    mediaUpdate: "own",
    characterLimit: 5000,
    maxMedia: 6,
  },
  akkoma: {
    // Pleroma.Application's compat version string: "2.7.2 (compatible; Akkoma <version>)".
    version: "2.7.2 (compatible; Akkoma 3.13.2)",
    nodeInfoName: "akkoma",
    nodeInfoPath: "/nodeinfo/2.0.json",
    instanceV2: false,
    oauthMetadata: false,
    // config/config.exs :oauth2 scopes: read write follow push admin, and their read:/write: parts.
    scopes: ["read", "write", "follow", "push", "admin"],
    idempotency: "replay",
    photoRequired: false,
    // lib/pleroma/web/router.ex: /notice/:id
    statusPath: (_username, id) => `/notice/${id}`,
    statusEdit: "pleroma",
    mediaUpdate: "own",
    characterLimit: 5000,
    maxMedia: 1000,
  },
  pleroma: {
    version: "2.7.2 (compatible; Pleroma 2.6.0)",
    nodeInfoName: "pleroma",
    nodeInfoPath: "/nodeinfo/2.0.json",
    instanceV2: false,
    oauthMetadata: false,
    scopes: ["read", "write", "follow", "push", "admin"],
    idempotency: "replay",
    photoRequired: false,
    statusPath: (_username, id) => `/notice/${id}`,
    statusEdit: "pleroma",
    mediaUpdate: "own",
    characterLimit: 5000,
    maxMedia: 1000,
  },
};

export const softwareProfile = (software: SandboxSoftware): SoftwareProfile => profiles[software];
