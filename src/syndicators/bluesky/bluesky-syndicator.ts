// @possekit/syndicator-bluesky: posts a copy of each post to Bluesky (AT Protocol) with an app
// password: its text with facets, its photos with alt text, or a link card for the post; likes,
// reposts and replies of Bluesky posts become likes, reposts and replies.
import { z } from "zod";
import { firstUrl, postLanguage } from "../../contract/jf2.ts";
import type { PluginMeta, Server } from "../../contract/plugin.ts";
import { SyndicationError } from "../../contract/syndication-error.ts";
import type {
  CopyChangeOptions,
  CopyPreview,
  PostProperties,
  PreviewOptions,
  Publication,
  SyndicateOptions,
  SyndicatorInfo,
  SyndicatorPlugin,
} from "../../contract/syndicator.ts";
import { credentialSetting, HOST_NOT_JOINED, joinHost } from "../../contract/syndicator-kit.ts";
import { copyKind } from "../shared/copy-kind.ts";
import type { Target } from "../shared/http.ts";
import { imageSize } from "../shared/image-size.ts";
import { type FetchedPhoto, fetchPhoto } from "../shared/photos.ts";
import { type BlobRef, BlueskyApi, type BlueskySession } from "./bluesky-api.ts";
import { type BlueskyCopy, composeBluesky } from "./bluesky-compose.ts";
import { detectFacets } from "./bluesky-facets.ts";
import { type BlueskyOptions, blueskyPluginId, parseBlueskyOptions } from "./bluesky-options.ts";
import { blueskyPostAddress, blueskyPostPage } from "./bluesky-post-url.ts";
import { BlueskySessions, isSessionError } from "./bluesky-session.ts";
import { cardImageOfPage } from "./link-card-image.ts";
import { recordKeyFor, recordKeyRange } from "./record-key.ts";

const collection = "app.bsky.feed.post";
const likeCollection = "app.bsky.feed.like";
const repostCollection = "app.bsky.feed.repost";
/** The part of a post record that says which thread it belongs to. */
const replyRootSchema = z.object({ root: z.object({ uri: z.string(), cid: z.string() }) });
/** Where a copy of each kind that is not our post is found: our likes or reposts of that post. */
const actionCollections = {
  like: [likeCollection],
  repost: [repostCollection],
  post: [likeCollection, repostCollection],
};
/** The part of a like or repost record that names the post it is about. */
const subjectSchema = z.object({ subject: z.object({ uri: z.string() }) });
/** app.bsky.embed.images takes images of at most 1,000,000 bytes each. */
const maxImageBytes = 1_000_000;
/** A photo up to this size is fetched and, when over maxImageBytes, downscaled to fit. */
const maxDownloadBytes = 20_000_000;
const downloadLimitReason = `possekit downscales photos of up to ${maxDownloadBytes} bytes to Bluesky's ${maxImageBytes}; upload a smaller photo`;

export class BlueskySyndicator implements SyndicatorPlugin {
  static readonly packageName = "@possekit/syndicator-bluesky";
  readonly id = blueskyPluginId;
  readonly name = "Bluesky";
  readonly meta: PluginMeta = {
    url: import.meta.url,
    description: "Posts a copy of each post to a Bluesky account",
  };
  /** The options, without the app password. */
  readonly options: Record<string, unknown>;
  readonly info: SyndicatorInfo;
  /** The record key is derived from the idempotency key, so a repeat finds the first post. */
  readonly honoursIdempotencyKey = true;
  readonly #options: BlueskyOptions;
  /** The host's rules for fetching photos, read in init(). */
  #host = HOST_NOT_JOINED;
  /** One session for every post (bluesky-session.ts). */
  readonly #sessions: BlueskySessions;
  readonly credentialSetting: string;

  constructor(options: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env) {
    this.#options = parseBlueskyOptions(options, env);
    this.#sessions = new BlueskySessions(this.#options.handle, this.#options.password);
    const { password: _secret, ...rest } = this.#options;
    this.options = rest;
    this.credentialSetting = credentialSetting(BlueskySyndicator.packageName, options, {
      options: ["password"],
      environment: ["BLUESKY_PASSWORD"],
    });
    const profile = `https://bsky.app/profile/${this.#options.handle}`;
    this.info = {
      uid: profile,
      name: `@${this.#options.handle}`,
      service: { name: "Bluesky", url: "https://bsky.app/" },
      user: { name: `@${this.#options.handle}`, url: profile },
    };
  }

  init(server: Server): void {
    this.#host = joinHost(server, this);
  }

  /** Signs in (or reuses the session, renewing it as a send would) and asks who it is: posts nothing. */
  async verify({ signal }: { signal: AbortSignal }): Promise<void> {
    const api = new BlueskyApi(this.#options.serviceUrl, { name: "Bluesky", signal });
    await this.#sessions.use(api, (session) => api.getSession(session));
  }

  /** What syndicate() would send now: the text, the photos with their alt text, the link card. */
  preview(properties: PostProperties, publication: Publication, options: PreviewOptions = {}): CopyPreview {
    return composeBluesky(properties, publication, this.#options, options.text).preview;
  }

  async syndicate(
    properties: PostProperties,
    publication: Publication,
    { idempotencyKey, signal, text }: SyndicateOptions,
  ): Promise<string> {
    const target: Target = { name: "Bluesky", signal };
    const api = new BlueskyApi(this.#options.serviceUrl, target);
    const rkey = recordKeyFor(idempotencyKey);
    const likeOf = firstUrl(properties, "like-of", publication.me);
    const repostOf = firstUrl(properties, "repost-of", publication.me);
    const inReplyTo = firstUrl(properties, "in-reply-to", publication.me);
    return this.#sessions.use(api, async (session) => {
      for (const [url, what, subjectCollection] of [
        [likeOf, "like", likeCollection],
        [repostOf, "repost", repostCollection],
      ] as const) {
        if (!url) continue;
        const subject = await this.#subject(api, url, what);
        await this.#create(api, session, subjectCollection, rkey, {
          $type: subjectCollection,
          subject: { uri: subject.uri, cid: subject.cid },
          createdAt: new Date().toISOString(),
        });
        // A like or repost has no page of its own: its syndication URL is the post it is about.
        return blueskyPostPage(subject.did, subject.rkey);
      }
      const parent = inReplyTo ? await this.#subject(api, inReplyTo, "reply to") : undefined;

      const copy = composeBluesky(properties, publication, this.#options, text);
      const images: Image[] = [];
      for (const photo of copy.photos) {
        const fetched = await fetchPhoto(
          target,
          photo,
          maxDownloadBytes,
          { ownSite: publication.me, allowPrivate: this.#host.allowPrivate, media: this.#host.media },
          downloadLimitReason,
        );
        const fitting = await fitBlob(target, fetched);
        // Clients lay the photo out by its aspect ratio before it loads.
        const aspectRatio = imageSize(fitting.bytes);
        images.push({
          alt: photo.alt ?? "",
          image: await api.uploadBlob(session, fitting.bytes, fitting.mimeType),
          ...(aspectRatio ? { aspectRatio } : {}),
        });
      }
      const thumb = copy.card
        ? await this.#cardThumb(
            api,
            session,
            target,
            publication,
            copy.card.uri,
            copy.preview.linkCard?.image,
          )
        : undefined;
      const record = await this.#record(properties, copy, images, api, thumb);
      if (parent) {
        // A reply names its parent and the thread's first post (the parent's root, if it has one).
        const parentRef = { uri: parent.uri, cid: parent.cid };
        const root = replyRootSchema.safeParse(parent.value?.reply).data?.root ?? parentRef;
        record.reply = { root: { uri: root.uri, cid: root.cid }, parent: parentRef };
      }
      await this.#create(api, session, collection, rkey, record);
      return blueskyPostPage(session.did, rkey);
    });
  }

  /**
   * Deletes the copy at `url`, always from this account's own repository. A post copy's URL names
   * its record (at://<did>/app.bsky.feed.post/<rkey>). A like or repost has no page: its URL is the
   * post it is about, so the deleted post says which record is the copy (like-of: our like of that
   * post, repost-of: our repost, else our post), found within the record keys possekit makes. A
   * record already gone counts as deleted (the PDS answers its delete with success). Two records of
   * ours that could each be the copy are refused, not guessed.
   */
  async delete(
    properties: PostProperties,
    publication: Publication,
    { url, signal }: CopyChangeOptions,
  ): Promise<void> {
    const api = new BlueskyApi(this.#options.serviceUrl, { name: "Bluesky", signal });
    const address = blueskyPostAddress(url);
    if (!address) {
      throw new SyndicationError(
        `Bluesky: cannot delete ${url}: it is not the address of a Bluesky post (https://bsky.app/profile/…/post/…)`,
        { permanent: true },
      );
    }
    const kind = copyKind(properties, publication);
    await this.#sessions.use(api, async (session) => {
      const did = await this.#didOf(api, session, address.actor, url);
      // A post possekit made has a record key from recordKeyFor(); one made in an app has not.
      const ourPost =
        did === session.did && address.rkey > recordKeyRange.after && address.rkey <= recordKeyRange.last;
      if (kind === "post" && ourPost) {
        await api.deleteRecord(session, collection, address.rkey);
        return;
      }
      // Someone else's post (or one made in an app) is never deleted: only our like or repost of it.
      // A post that is neither, whose copy is not a post of ours, was a like or a repost when it
      // was sent: either could be the copy.
      const postUri = `at://${did}/${collection}/${address.rkey}`;
      const actions = await this.#actionsOn(api, session, postUri, actionCollections[kind]);
      if (actions.length > 1) {
        throw new SyndicationError(
          `Bluesky: will not delete ${url}: @${this.#options.handle} has more than one ${kind === "post" ? "like or repost" : kind} of it that could be this copy; delete it on Bluesky`,
          { permanent: true },
        );
      }
      // With none left, it was undone already, perhaps by an attempt whose answer was lost.
      const [only] = actions;
      if (only) await api.deleteRecord(session, only.collection, only.rkey);
    });
  }

  /** The DID an address names its account by (the session's own handle needs no look-up). */
  async #didOf(api: BlueskyApi, session: BlueskySession, actor: string, url: string): Promise<string> {
    if (actor.startsWith("did:")) return actor;
    if (actor.toLowerCase() === session.handle.toLowerCase()) return session.did;
    const did = await api.resolveHandle(actor);
    if (!did) {
      throw new SyndicationError(`Bluesky: cannot delete ${url}: no account has the handle ${actor}`, {
        permanent: true,
      });
    }
    return did;
  }

  /**
   * This account's records in `collections` (likes, reposts) about a post, among those possekit
   * made: their record keys all lie in recordKeyRange, so the pages before and after it (likes made
   * in an app) are never read.
   */
  async #actionsOn(
    api: BlueskyApi,
    session: BlueskySession,
    postUri: string,
    collections: string[],
  ): Promise<{ collection: string; rkey: string }[]> {
    const found: { collection: string; rkey: string }[] = [];
    for (const actionCollection of collections) {
      let cursor: string | undefined = recordKeyRange.after;
      while (cursor) {
        const page = await api.listRecords(session.did, actionCollection, cursor);
        cursor = page.records.length > 0 ? page.cursor : undefined;
        for (const record of page.records) {
          const rkey = record.uri.split("/").pop() ?? "";
          if (rkey > recordKeyRange.last) {
            cursor = undefined;
            break;
          }
          if (subjectSchema.safeParse(record.value).data?.subject.uri === postUri) {
            found.push({ collection: actionCollection, rkey });
          }
        }
      }
    }
    return found;
  }

  /**
   * The link card's picture: the post's `featured` image (as the preview names it), else its page's
   * og:image, fetched under the same rules and limit as photos. A card without a picture is still a
   * card, so a page or picture that cannot be had is left out rather than failing the post.
   */
  async #cardThumb(
    api: BlueskyApi,
    session: BlueskySession,
    target: Target,
    publication: Publication,
    link: string,
    featured: string | undefined,
  ): Promise<BlobRef | undefined> {
    const policy = {
      ownSite: publication.me,
      allowPrivate: this.#host.allowPrivate,
      media: this.#host.media,
    };
    try {
      const url = featured ?? (await cardImageOfPage(link, policy, target.signal));
      if (!url) return undefined;
      const image = await fitBlob(target, await fetchPhoto(target, { url }, maxDownloadBytes, policy));
      return await api.uploadBlob(session, image.bytes, image.mimeType);
    } catch (error) {
      // Out of time, or the session expired: the post cannot go on without it either.
      if (api.aborted || isSessionError(error)) throw error;
      return undefined;
    }
  }

  /**
   * Creates a record at `rkey`. A record already at this key is the one a previous attempt made.
   * Today's PDS answers such a repeat with 500 InternalServerError (bluesky-social/atproto#3718), so
   * any refusal other than a session problem is checked against the repository before it is believed.
   */
  async #create(
    api: BlueskyApi,
    session: BlueskySession,
    recordCollection: string,
    rkey: string,
    record: Record<string, unknown>,
  ): Promise<void> {
    try {
      await api.createRecord(session, recordCollection, rkey, record);
    } catch (error) {
      if (api.aborted || isSessionError(error)) throw error;
      const existing = await api.getRecord(session.did, recordCollection, rkey).catch(() => undefined);
      if (!existing) throw error;
    }
  }

  /** The Bluesky post a like, repost or reply is about, with the strong reference records need. */
  async #subject(api: BlueskyApi, url: string, what: "like" | "repost" | "reply to") {
    const address = blueskyPostAddress(url);
    if (!address) {
      throw new SyndicationError(
        `Bluesky: can only ${what} Bluesky posts (https://bsky.app/profile/…/post/…), not ${url}; remove Bluesky from this post's targets`,
        { permanent: true },
      );
    }
    const did = address.actor.startsWith("did:") ? address.actor : await api.resolveHandle(address.actor);
    if (!did) {
      throw new SyndicationError(
        `Bluesky: cannot ${what} ${url}: no account has the handle ${address.actor}`,
        {
          permanent: true,
        },
      );
    }
    const found = await api.getRecord(did, collection, address.rkey);
    if (!found) {
      throw new SyndicationError(`Bluesky: cannot ${what} ${url}: the post does not exist or was deleted`, {
        permanent: true,
      });
    }
    return { ...found, did, rkey: address.rkey };
  }

  async #record(
    properties: PostProperties,
    copy: BlueskyCopy,
    images: Image[],
    api: BlueskyApi,
    thumb: BlobRef | undefined,
  ): Promise<Record<string, unknown>> {
    const { text, card } = copy;
    const facets = await detectFacets(text, (handle) => api.resolveHandle(handle));
    const record: Record<string, unknown> = { $type: collection, text, createdAt: new Date().toISOString() };
    if (facets.length > 0) record.facets = facets;
    const lang = postLanguage(properties);
    if (lang) record.langs = [lang];
    if (images.length > 0) {
      record.embed = { $type: "app.bsky.embed.images", images };
    } else if (card) {
      record.embed = {
        $type: "app.bsky.embed.external",
        external: thumb ? { ...card, thumb } : card,
      };
    }
    return record;
  }
}

/**
 * The photo as Bluesky takes it: as it is when under the blob limit, else downscaled to fit (the
 * image library is loaded only then).
 */
async function fitBlob(
  target: Target,
  photo: FetchedPhoto,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; mimeType: string }> {
  if (photo.bytes.length <= maxImageBytes) return photo;
  const { downscalePhoto } = await import("../shared/downscale-photo.ts");
  return downscalePhoto(target, photo.url, photo.bytes, photo.mimeType, maxImageBytes);
}

interface Image {
  alt: string;
  image: BlobRef;
  aspectRatio?: { width: number; height: number };
}
