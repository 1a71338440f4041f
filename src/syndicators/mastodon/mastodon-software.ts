// Which server software speaks Mastodon's API at an instance, and what that changes for a copy.
// Told apart at connection (and stored with the account as the `software` option) from the
// instance's NodeInfo (/.well-known/nodeinfo → software.name, nodeinfo.diaspora.software's schema
// 2.0/2.1), else from /api/v1/instance's `version`, which Pixelfed, Akkoma and Pleroma write as
// "<Mastodon API version> (compatible; <Name> <version>)". GoToSocial's version is its own bare
// number, so NodeInfo is what names it (internal/processing/fedi/wellknown.go: "gotosocial").
import { z } from "zod";

export const mastodonSoftwareNames = ["mastodon", "pixelfed", "gotosocial", "akkoma", "pleroma"] as const;
export type MastodonSoftware = (typeof mastodonSoftwareNames)[number];

export const softwareLabel: Record<MastodonSoftware, string> = {
  mastodon: "Mastodon",
  pixelfed: "Pixelfed",
  gotosocial: "GoToSocial",
  akkoma: "Akkoma",
  pleroma: "Pleroma",
};

/** What differs between the servers, for the syndicator. */
export interface SoftwareTraits {
  /**
   * A status needs a photo: Pixelfed's statusCreate answers 403 "Empty statuses are not allowed"
   * without media_ids or in_reply_to_id (app/Http/Controllers/Api/ApiV1Controller.php).
   */
  photoRequired: boolean;
  /**
   * A repeated Idempotency-Key is answered 400 "Duplicate idempotency key." instead of the first
   * status (Pixelfed's statusCreate keeps the key an hour, set before the status is made).
   */
  duplicateKeyRefused: boolean;
  /**
   * The server ignores Idempotency-Key: GoToSocial lists it only among CORS headers
   * (internal/middleware/cors.go) and stores it nowhere (gtsmodel's Idempotency is "currently
   * unused"). A resend after an unknown outcome must first look for the copy.
   */
  ignoresIdempotencyKey: boolean;
  /**
   * The `content_type` to send: GoToSocial (text/plain or text/markdown, by the account's default)
   * and Akkoma/Pleroma (text/plain, text/markdown, text/html, text/bbcode) parse the status by it;
   * possekit's text is plain, so a Markdown default must not reformat its underscores and asterisks.
   */
  contentType?: "text/plain";
  /**
   * An edit may change a status's media (decision 0060): it attaches the media ids it names, in
   * order, and detaches the rest.
   * - Mastodon: PUT /api/v1/statuses/:id (UpdateStatusService#update_media_attachments!).
   * - GoToSocial: internal/processing/status/edit.go, Edit: processMedia reads form.MediaIDs (the
   *   account's own uploads, unattached or this status's), then `status.AttachmentIDs = form.MediaIDs`.
   * - Akkoma and Pleroma: CommonAPI.update builds the status anew from the edit's params
   *   (ActivityDraft: media_ids → attachment), and Object.Updater.update_content_fields replaces each
   *   of Pleroma.Constants.status_updatable_fields, "attachment" among them.
   * - Not Pixelfed: StatusEditController@store → UpdateStatusService::updateMediaAttachements leaves
   *   a status of one photo as it is and never sets status_id on a new media id (it only drops and
   *   reorders an album's), so a photo cannot be added or replaced: its copies keep their photos,
   *   and the post's page says so.
   */
  editsMedia: boolean;
  /**
   * How an edit carries each photo's alt text, when not as Mastodon's form fields
   * media_attributes[][id] and media_attributes[][description]:
   * - "json": GoToSocial's StatusEditRequest (internal/api/model/status.go) binds the form key
   *   `media_attributes[]`, not Mastodon's media_attributes[][id] and [description] fields, which it
   *   ignores; so possekit sends its edits as JSON, which parseStatusEditForm
   *   (internal/api/client/statuses/statusedit.go, binding.JSON) reads as
   *   `media_attributes: [{id, description}]`, applied by processMediaEdits (edit.go).
   * - "media": Pleroma's StatusUpdateRequest (lib/pleroma/web/api_spec/operations/status_operation.ex)
   *   has no media_attributes: a description is changed with PUT /api/v1/media/:id
   *   (MediaController.update) before the edit, which then takes each media as it is stored.
   *   Pixelfed's edit (StoreStatusEditRequest) takes no media_attributes either; its PUT
   *   /api/v1/media/:id (ApiV1Controller::mediaUpdate) sets the caption of a media already posted.
   */
  editAlt?: "json" | "media";
  /** The paths of the account's statuses' pages, before the id: how an own copy is recognised. */
  statusPaths: (user: string) => string[];
  /** What a status id looks like on this server. */
  statusId: RegExp;
}

const traits: Record<MastodonSoftware, SoftwareTraits> = {
  mastodon: {
    photoRequired: false,
    duplicateKeyRefused: false,
    ignoresIdempotencyKey: false,
    editsMedia: true,
    statusPaths: (user) => [`/@${user}/`, `/users/${user}/statuses/`],
    statusId: /^\d+$/,
  },
  // Status::url(): "/p/{username}/{id}" (app/Status.php); ids are snowflake numbers.
  pixelfed: {
    photoRequired: true,
    duplicateKeyRefused: true,
    ignoresIdempotencyKey: false,
    editsMedia: false,
    // ApiV1Controller::mediaUpdate changes a media's caption, attached or not.
    editAlt: "media",
    statusPaths: (user) => [`/p/${user}/`],
    statusId: /^\d+$/,
  },
  // "/@{username}/statuses/{ULID}" (internal/uris/uri.go); ids are ULIDs.
  gotosocial: {
    photoRequired: false,
    duplicateKeyRefused: false,
    ignoresIdempotencyKey: true,
    contentType: "text/plain",
    editsMedia: true,
    editAlt: "json",
    statusPaths: (user) => [`/@${user}/statuses/`],
    statusId: /^[0-9A-Za-z]+$/,
  },
  // "/notice/{FlakeId}" (lib/pleroma/web/router.ex); the id does not name the account.
  akkoma: {
    photoRequired: false,
    duplicateKeyRefused: false,
    ignoresIdempotencyKey: false,
    contentType: "text/plain",
    editsMedia: true,
    editAlt: "media",
    statusPaths: () => ["/notice/"],
    statusId: /^[0-9A-Za-z]+$/,
  },
  pleroma: {
    photoRequired: false,
    duplicateKeyRefused: false,
    ignoresIdempotencyKey: false,
    contentType: "text/plain",
    editsMedia: true,
    editAlt: "media",
    statusPaths: () => ["/notice/"],
    statusId: /^[0-9A-Za-z]+$/,
  },
};

export const traitsOf = (software: MastodonSoftware): SoftwareTraits => traits[software];

/** A NodeInfo software name or an /api/v1/instance version, as one of the servers handled. */
export function softwareFrom(text: string | undefined): MastodonSoftware | undefined {
  if (!text) return undefined;
  const name = /\(compatible;\s*([A-Za-z]+)/.exec(text)?.[1] ?? text;
  const known = name.trim().toLowerCase();
  return (mastodonSoftwareNames as readonly string[]).includes(known)
    ? (known as MastodonSoftware)
    : undefined;
}

const nodeInfoLinks = z.object({
  links: z.array(z.object({ rel: z.string(), href: z.string() })),
});
const nodeInfo = z.object({ software: z.object({ name: z.string() }) });
const instanceVersion = z.object({ version: z.string() });

/** A GET of a JSON document at the instance; undefined when it could not be had. */
export type GetJson = (url: string) => Promise<unknown>;

/**
 * The software at `origin`: NodeInfo's name, else /api/v1/instance's version; "mastodon" when
 * neither names one of the others (any other server is taken at its word of speaking Mastodon's API).
 * NodeInfo's document is read only from the instance itself.
 */
export async function detectSoftware(origin: string, getJson: GetJson): Promise<MastodonSoftware> {
  const links = nodeInfoLinks.safeParse(await getJson(`${origin}/.well-known/nodeinfo`));
  const href = links.success
    ? links.data.links
        .filter((link) => link.rel.startsWith("http://nodeinfo.diaspora.software/ns/schema/2."))
        .map((link) => link.href)
        .find((candidate) => URL.canParse(candidate) && new URL(candidate).origin === origin)
    : undefined;
  if (href) {
    const info = nodeInfo.safeParse(await getJson(href));
    const named = info.success ? softwareFrom(info.data.software.name) : undefined;
    if (named) return named;
  }
  const instance = instanceVersion.safeParse(await getJson(`${origin}/api/v1/instance`));
  return (instance.success ? softwareFrom(instance.data.version) : undefined) ?? "mastodon";
}
