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
   * An edit may change a status's media (decision 0060): Mastodon's PUT /api/v1/statuses/:id
   * attaches the media_ids it names and detaches the rest (UpdateStatusService#update_media_attachments!).
   * Not relied on for the others, whose edits possekit has not checked: their copies keep the photos
   * they were sent, and the post's page says so.
   */
  editsMedia: boolean;
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
    statusPaths: (user) => [`/p/${user}/`],
    statusId: /^\d+$/,
  },
  // "/@{username}/statuses/{ULID}" (internal/uris/uri.go); ids are ULIDs.
  gotosocial: {
    photoRequired: false,
    duplicateKeyRefused: false,
    ignoresIdempotencyKey: true,
    contentType: "text/plain",
    editsMedia: false,
    statusPaths: (user) => [`/@${user}/statuses/`],
    statusId: /^[0-9A-Za-z]+$/,
  },
  // "/notice/{FlakeId}" (lib/pleroma/web/router.ex); the id does not name the account.
  akkoma: {
    photoRequired: false,
    duplicateKeyRefused: false,
    ignoresIdempotencyKey: false,
    contentType: "text/plain",
    editsMedia: false,
    statusPaths: () => ["/notice/"],
    statusId: /^[0-9A-Za-z]+$/,
  },
  pleroma: {
    photoRequired: false,
    duplicateKeyRefused: false,
    ignoresIdempotencyKey: false,
    contentType: "text/plain",
    editsMedia: false,
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
