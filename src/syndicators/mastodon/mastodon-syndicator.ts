// @possekit/syndicator-mastodon: posts a status for each post (with up to 4 photos and their alt
// text), or favourites, boosts or replies to a status when the post likes, reposts or replies to one.
import type { Photo } from "../../contract/jf2.ts";
import type { PluginMeta, Server, SyndicatorPlugin } from "../../contract/plugin.ts";
import { SyndicationError } from "../../contract/syndication-error.ts";
import type {
  CopyChangeOptions,
  CopyPreview,
  PostProperties,
  PreviewOptions,
  Publication,
  SyndicateOptions,
  SyndicatorInfo,
  ThreadOptions,
} from "../../contract/syndicator.ts";
import { credentialSetting, HOST_NOT_JOINED, joinHost } from "../../contract/syndicator-kit.ts";
import type { ThreadPost } from "../../contract/thread-progress.ts";
import { copyKind } from "../shared/copy-kind.ts";
import type { Target } from "../shared/http.ts";
import { fetchPhoto } from "../shared/photos.ts";
import { shownOptions } from "../shared/shown-options.ts";
import { threadOptionsOf } from "../shared/thread-options.ts";
import { mastodonAccount } from "./mastodon-account.ts";
import { isDuplicateKeyRefusal, MastodonApi, type MastodonStatus, statusUrl } from "./mastodon-api.ts";
import { composeMastodon } from "./mastodon-compose.ts";
import { findCopy } from "./mastodon-copy-lookup.ts";
import { InstanceLimitsCache } from "./mastodon-instance.ts";
import { type MastodonOptions, mastodonPluginId, parseMastodonOptions } from "./mastodon-options.ts";
import { type SoftwareTraits, softwareLabel, traitsOf } from "./mastodon-software.ts";
import { resolveStatusId } from "./mastodon-status-id.ts";
import { sendMastodonThread } from "./mastodon-thread.ts";
import { deleteMastodonThread, editMastodonThread, findMastodonThread } from "./mastodon-thread-edit.ts";

/** What a send saves before POST /api/v1/statuses where a resend must first look for the copy. */
const postingMark = "posting:";

/** How far back a send looks for its copy on GoToSocial when the host keeps no checkpoint. */
const lookBackWithoutCheckpointMs = 60 * 60 * 1000;

/** Pixelfed keeps an Idempotency-Key for an hour (Cache::put($key, 1, 3600) in statusCreate). */
const pixelfedKeySeconds = 3600;

/** Mastodon's documented limit for an image. */
const maxPhotoBytes = 16 * 1024 * 1024;

export class MastodonSyndicator implements SyndicatorPlugin {
  static readonly packageName = "@possekit/syndicator-mastodon";
  /** Connecting and disconnecting an account from the Accounts page. */
  static readonly account = mastodonAccount;
  readonly id = mastodonPluginId;
  readonly name = "Mastodon";
  readonly meta: PluginMeta = {
    url: import.meta.url,
    description: "Posts a copy of each post to a Mastodon account",
  };
  /** The options, without the access token. */
  readonly options: Record<string, unknown>;
  readonly info: SyndicatorInfo;
  /**
   * Mastodon keeps an Idempotency-Key for an hour; favourites and boosts are idempotent anyway.
   * Where the server does not (GoToSocial, or Pixelfed's 400 to a repeated key), a resend after an
   * unknown outcome looks for the copy among the account's latest statuses before posting again.
   */
  readonly honoursIdempotencyKey = true;
  readonly #options: MastodonOptions;
  readonly #traits: SoftwareTraits;
  /** "Mastodon", "Pixelfed", …: starts every error message. */
  readonly #label: string;
  /** The host's rules for fetching photos, read in init(). */
  #host = HOST_NOT_JOINED;
  readonly #limits: InstanceLimitsCache;
  readonly credentialSetting: string;
  readonly addressSetting = `"${MastodonSyndicator.packageName}".url`;
  /** Absent where the server allows no thread (see composeMastodon). */
  readonly threads?: ThreadOptions;

  constructor(options: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env) {
    this.#options = parseMastodonOptions(options, env);
    this.#traits = traitsOf(this.#options.software);
    this.#label = softwareLabel[this.#options.software];
    const { url, user } = this.#options;
    this.options = shownOptions(this.#options, options, ["accessToken"]);
    this.#limits = new InstanceLimitsCache(url);
    if (!(this.#traits.ignoresIdempotencyKey || this.#traits.photoRequired))
      this.threads = threadOptionsOf(this.#options);
    this.credentialSetting = credentialSetting(MastodonSyndicator.packageName, options, {
      options: ["accessToken"],
      environment: ["MASTODON_ACCESS_TOKEN"],
    });
    const host = new URL(url).host;
    this.info = {
      uid: `${url}/@${user}`,
      name: `@${user}@${host}`,
      service: { name: this.#label, url: `${url}/` },
      user: { name: `@${user}@${host}`, url: `${url}/@${user}` },
      // Followers-only statuses are not for visitors: the site does not link to them.
      ...(this.#options.visibility === "private" ? { publicCopies: false } : {}),
    };
  }

  init(server: Server): void {
    this.#host = joinHost(server, this);
  }

  /** The token is accepted, and it is the configured account's: no status is posted. */
  async verify({ signal }: { signal: AbortSignal }): Promise<void> {
    const target: Target = { name: this.#label, signal };
    const api = new MastodonApi(this.#options.url, this.#options.accessToken, target);
    const { username } = await api.verifyCredentials();
    if (username.toLowerCase() !== this.#options.user.toLowerCase())
      throw new SyndicationError(
        `${this.#label}: the access token belongs to @${username}, not @${this.#options.user}`,
        { permanent: true },
      );
  }

  /** What syndicate() would send now, with the instance's limits as last read (or assumed). */
  preview(properties: PostProperties, publication: Publication, options: PreviewOptions = {}): CopyPreview {
    return composeMastodon(properties, publication, this.#options, this.#limits.peek(), options).preview;
  }

  /**
   * Whether an edit changes the copy's photos (decision 0060): Mastodon's, GoToSocial's, Akkoma's and
   * Pleroma's do; Pixelfed's copies keep theirs (SoftwareTraits.editsMedia says why).
   */
  get updatesPhotos(): boolean {
    return this.#traits.editsMedia;
  }

  /**
   * Edits the status to what syndicate() would post now. Where the server's edits change media
   * (updatesPhotos) they follow the post's photos (decision 0060): a photo the copy holds keeps its
   * media (found by the photos last sent, in order), with its alt text now; a new one is uploaded
   * first; one no longer in the post is left out, which detaches it. On Pixelfed, or with no record
   * of what was sent, the media stay, each with the post's alt text photo by photo. A favourite or
   * a boost has nothing to edit.
   */
  async update(
    properties: PostProperties,
    publication: Publication,
    options: CopyChangeOptions,
  ): Promise<void> {
    const { url, signal } = options;
    const id = this.#ownStatusId(url);
    if (!id) return;
    const target: Target = { name: this.#label, signal };
    const api = new MastodonApi(this.#options.url, this.#options.accessToken, target);
    const copy = composeMastodon(
      properties,
      publication,
      this.#options,
      await this.#limits.get(target),
      options,
    );
    if (copy.favourite || copy.reblog) return;
    const editFirst = async (firstId: string, text: string) => {
      const attachments = (await api.getStatus(firstId)).media_attachments ?? [];
      const held = options.sentPhotos;
      let media: { id: string; description: string }[];
      if (this.#traits.editsMedia && held && held.length === attachments.length) {
        media = [];
        for (const photo of copy.photos) {
          const attached = attachments[held.findIndex((sent) => sent.url === photo.url)];
          const mediaId = attached?.id ?? (await this.#upload(api, target, photo, publication));
          media.push({ id: mediaId, description: photo.alt ?? "" });
        }
      } else {
        // Kept media take the alt text of the same photo in the post when the record says which
        // photo each is (one the post dropped keeps its own); without a record, photo by photo.
        const record = held && held.length === attachments.length ? held : undefined;
        media = attachments.map((item, index) => {
          const sent = record?.[index];
          const now = sent ? copy.photos.find((photo) => photo.url === sent.url) : copy.photos[index];
          return { id: item.id, description: now?.alt ?? item.description ?? "" };
        });
      }
      const editAlt = this.#traits.editAlt;
      if (editAlt === "media") {
        // Pleroma, Akkoma, Pixelfed: a held photo's alt text is the media's own, set before the edit
        // (a new upload already carries its description).
        for (const item of media) {
          const held = attachments.find((attached) => attached.id === item.id);
          if (held && (held.description ?? "") !== item.description)
            await api.describeMedia(item.id, item.description);
        }
      }
      await api.editStatus(
        firstId,
        {
          status: text,
          media,
          ...(copy.language ? { language: copy.language } : {}),
          ...(this.#traits.contentType ? { contentType: this.#traits.contentType } : {}),
        },
        editAlt === "json" ? "json" : editAlt === "media" ? "none" : "form",
      );
    };
    // A thread, or a status that becomes one: every post is brought to the new split (decision 0062).
    const thread = options.threadPosts ?? (await this.#threadSentBefore(api, id));
    // A status being appended (decision 0066) makes even a thread of one a thread to settle.
    if (!thread || (thread.length === 1 && !copy.thread && !thread[0]?.appending))
      return editFirst(id, copy.status);
    await editMastodonThread(api, {
      current: thread,
      posts: copy.thread ?? [copy.status],
      alts: copy.photos.map((photo) => photo.alt ?? ""),
      idempotencyKey: options.idempotencyKey,
      visibility: this.#options.visibility,
      language: copy.language,
      contentType: this.#traits.contentType,
      editFirst,
      save: options.saveThread ?? noSave,
      label: this.#label,
    });
  }

  /**
   * A copy sent as a thread before its posts were kept: found through the status's context
   * (decision 0062), only where threads are on and can be sent. Undefined when the status is gone.
   */
  async #threadSentBefore(api: MastodonApi, id: string): Promise<ThreadPost[] | undefined> {
    if (!this.#options.thread || this.#traits.ignoresIdempotencyKey || this.#traits.photoRequired)
      return undefined;
    try {
      return await findMastodonThread(api, id);
    } catch (error) {
      if (error instanceof SyndicationError && error.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * Deletes the status, or undoes the favourite or the boost. A like's or a boost's copy URL is the
   * status it is about, so the post says which it is: undoing both would take back a boost the user
   * made through another post. One that is gone counts as deleted.
   */
  async delete(
    properties: PostProperties,
    publication: Publication,
    { url, signal, threadPosts: thread, saveThread }: CopyChangeOptions,
  ): Promise<void> {
    const target: Target = { name: this.#label, signal };
    const api = new MastodonApi(this.#options.url, this.#options.accessToken, target);
    const kind = copyKind(properties, publication);
    const ownId = this.#ownStatusId(url);
    if (kind !== "post") {
      // A like or boost of one of our own statuses names it by its own URL: never deleted for it.
      const id = ownId ?? (await api.findStatus(url))?.id;
      if (!id) return;
      return kind === "like" ? api.unfavourite(id) : api.unreblog(id);
    }
    if (ownId) {
      // Every status of a thread, the last first (decision 0062).
      const posts = thread ?? (await this.#threadSentBefore(api, ownId));
      if (posts && (posts.length > 1 || posts[0]?.appending))
        return deleteMastodonThread(
          api,
          posts,
          { visibility: this.#options.visibility, contentType: this.#traits.contentType },
          saveThread ?? noSave,
          this.#label,
        );
      return api.deleteStatus(ownId);
    }
    // Someone else's status, yet the post no longer likes or reposts it (it was edited since): the
    // copy is what the account still did to it, when that is one thing only.
    const status = await api.findStatus(url);
    if (!status || (!status.reblogged && !status.favourited)) return;
    if (status.reblogged && status.favourited) {
      throw new SyndicationError(
        `${this.#label}: will not undo ${url}: the post neither likes nor boosts it any more, and @${this.#options.user} both favourited and boosted it; undo the copy on Mastodon`,
        { permanent: true },
      );
    }
    return status.reblogged ? api.unreblog(status.id) : api.unfavourite(status.id);
  }

  /** Uploads one of the post's photos (read from our own media store when it is ours). */
  async #upload(api: MastodonApi, target: Target, photo: Photo, publication: Publication): Promise<string> {
    const fetched = await fetchPhoto(target, photo, maxPhotoBytes, {
      ownSite: publication.me,
      allowPrivate: this.#host.allowPrivate,
      media: this.#host.media,
    });
    return api.uploadMedia(fetched);
  }

  /** The id of a status of the configured account at `url` (its page or its ActivityPub id). */
  #ownStatusId(url: string): string | undefined {
    const base = this.#options.url.replace(/\/+$/, "");
    const user = this.#options.user.toLowerCase();
    for (const path of this.#traits.statusPaths(user)) {
      const prefix = `${base}${path}`;
      if (url.toLowerCase().startsWith(prefix.toLowerCase())) {
        const id = url.slice(prefix.length).replace(/\/+$/, "");
        if (this.#traits.statusId.test(id)) return id;
      }
    }
    return undefined;
  }

  async syndicate(
    properties: PostProperties,
    publication: Publication,
    options: SyndicateOptions,
  ): Promise<string> {
    const { idempotencyKey, signal } = options;
    const target: Target = { name: this.#label, signal };
    const { url: instanceUrl } = this.#options;
    const api = new MastodonApi(instanceUrl, this.#options.accessToken, target);
    // Likes and boosts need no limits; a status is fitted to the limits read now.
    const first = composeMastodon(properties, publication, this.#options, this.#limits.peek(), options);
    if (first.favourite)
      return statusUrl(await api.favourite(await resolveStatusId(api, instanceUrl, first.favourite, "like")));
    if (first.reblog)
      return statusUrl(await api.reblog(await resolveStatusId(api, instanceUrl, first.reblog, "boost")));

    const inReplyToId = first.inReplyTo
      ? await resolveStatusId(api, instanceUrl, first.inReplyTo, "reply to")
      : undefined;

    const limits = await this.#limits.get(target);
    const copy = composeMastodon(properties, publication, this.#options, limits, options);
    if (copy.preview.notSent)
      // Permanent: the same post will never be taken, so it is never retried by itself.
      throw new SyndicationError(`${this.#label}: not sent: a photo is required`, {
        permanent: true,
        code: "photoRequired",
      });
    const uploadMedia = async () => {
      const mediaIds: string[] = [];
      for (const photo of copy.photos) mediaIds.push(await this.#upload(api, target, photo, publication));
      return mediaIds;
    };
    // Never for a server that ignores Idempotency-Key or wants a photo on each status (see compose).
    if (copy.thread) {
      return sendMastodonThread(api, {
        posts: copy.thread,
        idempotencyKey,
        inReplyToId,
        visibility: this.#options.visibility,
        language: copy.language,
        contentType: this.#traits.contentType,
        alts: copy.photos.map((photo) => photo.alt ?? ""),
        uploadMedia,
        resumeFrom: options.resumeFrom,
        checkpoint: options.checkpoint,
      });
    }
    // GoToSocial ignores Idempotency-Key: after an attempt that may have posted, look first. A host
    // that keeps no checkpoint cannot say whether one did: then every send looks back an hour.
    const since = this.#traits.ignoresIdempotencyKey
      ? options.checkpoint
        ? earlierAttempt(options.resumeFrom)
        : Date.now() - lookBackWithoutCheckpointMs
      : undefined;
    if (since !== undefined) {
      const found = await findCopy(api, { text: copy.status, since });
      if (found) return statusUrl(found);
    }
    const mediaIds = await uploadMedia();
    if (this.#traits.ignoresIdempotencyKey) await options.checkpoint?.(`${postingMark}${Date.now()}`);
    const attempted = Date.now();
    let created: MastodonStatus;
    try {
      created = await api.postStatus({
        status: copy.status,
        mediaIds,
        idempotencyKey,
        visibility: this.#options.visibility,
        ...(copy.language ? { language: copy.language } : {}),
        ...(inReplyToId ? { inReplyToId } : {}),
        ...(this.#traits.contentType ? { contentType: this.#traits.contentType } : {}),
      });
    } catch (error) {
      if (!(this.#traits.duplicateKeyRefused && isDuplicateKeyRefusal(error))) throw error;
      created = await this.#earlierCopy(api, copy.status, attempted);
    }
    return statusUrl(created);
  }

  /**
   * Pixelfed refused the key as used: an earlier send with it reached the server within the hour.
   * Its status is among the account's latest; when it is not there the earlier send failed after
   * the key was kept, and a send goes through once the key expires.
   */
  async #earlierCopy(api: MastodonApi, text: string, attempted: number): Promise<MastodonStatus> {
    const found = await findCopy(api, { text, since: attempted - pixelfedKeySeconds * 1000 });
    if (found) return found;
    throw new SyndicationError(
      `${this.#label}: an earlier send with this Idempotency-Key reached the server but made no status; sending again once the key expires`,
      { permanent: false, status: 400, retryAfterSeconds: pixelfedKeySeconds },
    );
  }
}

/** Where the host keeps no thread (a host of another kind): nothing to save. */
const noSave = async () => {};

/** When an earlier attempt of this send began posting, from what it saved; undefined if none did. */
function earlierAttempt(resumeFrom: string | undefined): number | undefined {
  if (!resumeFrom?.startsWith(postingMark)) return undefined;
  const at = Number(resumeFrom.slice(postingMark.length));
  return Number.isFinite(at) ? at : undefined;
}
