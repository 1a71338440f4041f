// @possekit/syndicator-bluesky: posts a copy of each post to Bluesky (AT Protocol) with an app
// password: its text with link facets, its photos with alt text, or a link card for the post.
import type {
  PluginMeta,
  PostProperties,
  Publication,
  Server,
  SyndicateOptions,
  SyndicatorInfo,
  SyndicatorPlugin,
} from "../../server/contract.ts";
import { cutToFit } from "../shared/fit-text.ts";
import { countGraphemes } from "../shared/graphemes.ts";
import { hashtags } from "../shared/hashtags.ts";
import type { Target } from "../shared/http.ts";
import { imageSize } from "../shared/image-size.ts";
import { categories, contentText, firstString, permalink, photos, postText } from "../shared/jf2.ts";
import { fetchPhoto } from "../shared/photos.ts";
import { SyndicationError } from "../syndication-error.ts";
import { type BlobRef, BlueskyApi, type BlueskySession } from "./bluesky-api.ts";
import { detectFacets } from "./bluesky-facets.ts";
import { type BlueskyOptions, blueskyPluginId, parseBlueskyOptions } from "./bluesky-options.ts";
import { blueskyPostText } from "./bluesky-post-text.ts";
import { recordKeyFor } from "./record-key.ts";

const collection = "app.bsky.feed.post";
/** app.bsky.embed.images takes at most 4 images of at most 1,000,000 bytes each. */
const maxImages = 4;
const maxImageBytes = 1_000_000;
const cardDescriptionGraphemes = 300;
/** XRPC errors that mean "sign in again", not "this post was refused". */
const sessionErrors = new Set(["ExpiredToken", "InvalidToken"]);

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
  /** The host's `fetch.allowPrivate`, read in init(). */
  #allowPrivateFetch = false;
  /** Bluesky limits sign-ins (30 per 5 minutes), so one session serves every post until it expires. */
  #session: Promise<BlueskySession> | undefined;

  constructor(options: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env) {
    this.#options = parseBlueskyOptions(options, env);
    const { password: _secret, ...rest } = this.#options;
    this.options = rest;
    const profile = `https://bsky.app/profile/${this.#options.handle}`;
    this.info = {
      uid: profile,
      name: `@${this.#options.handle}`,
      service: { name: "Bluesky", url: "https://bsky.app/" },
      user: { name: `@${this.#options.handle}`, url: profile },
    };
  }

  init(server: Server): void {
    this.#allowPrivateFetch = server.config.fetch.allowPrivate;
    server.addSyndicator(this);
  }

  async syndicate(
    properties: PostProperties,
    publication: Publication,
    { idempotencyKey, signal }: SyndicateOptions,
  ): Promise<string> {
    const target: Target = { name: "Bluesky", signal };
    for (const [property, what] of [
      ["like-of", "likes"],
      ["repost-of", "reposts"],
      ["in-reply-to", "replies"],
    ] as const) {
      if (properties[property] !== undefined) {
        throw new SyndicationError(
          `Bluesky: ${what} are not copied to Bluesky; remove Bluesky from this post's targets`,
          { permanent: true },
        );
      }
    }
    const api = new BlueskyApi(this.#options.serviceUrl, target);
    const rkey = recordKeyFor(idempotencyKey);
    return this.#withSession(api, async (session) => {
      const images: Image[] = [];
      for (const photo of photos(properties, publication.me).slice(0, maxImages)) {
        const fetched = await fetchPhoto(target, photo, maxImageBytes, {
          ownSite: publication.me,
          allowPrivate: this.#allowPrivateFetch,
        });
        // Clients lay the photo out by its aspect ratio before it loads.
        const aspectRatio = imageSize(fetched.bytes);
        images.push({
          alt: photo.alt ?? "",
          image: await api.uploadBlob(session, fetched.bytes, fetched.mimeType),
          ...(aspectRatio ? { aspectRatio } : {}),
        });
      }
      const record = await this.#record(properties, publication, images, api);
      try {
        await api.createRecord(session, collection, rkey, record);
      } catch (error) {
        // A record already at this key is the copy a previous attempt made. Today's PDS answers such
        // a repeat with 500 InternalServerError (bluesky-social/atproto#3718), so any refusal other
        // than a session problem is checked against the repository before it is believed.
        if (signal.aborted || (error instanceof SyndicationError && sessionErrors.has(error.code ?? "")))
          throw error;
        const existing = await api.getRecord(session.did, collection, rkey).catch(() => undefined);
        if (!existing) throw error;
      }
      // The DID, not the handle: a handle can change, and the link would then break.
      return `https://bsky.app/profile/${session.did}/post/${rkey}`;
    });
  }

  async #record(
    properties: PostProperties,
    publication: Publication,
    images: Image[],
    api: BlueskyApi,
  ): Promise<Record<string, unknown>> {
    const link = permalink(properties);
    const text = blueskyPostText({
      text: postText(properties),
      permalink: link,
      includePermalink: this.#options.includePermalink,
      hasImages: images.length > 0,
      hashtags: this.#options.includeCategories ? hashtags(categories(properties)) : "",
    });
    const facets = await detectFacets(text, (handle) => api.resolveHandle(handle));
    const record: Record<string, unknown> = { $type: collection, text, createdAt: new Date().toISOString() };
    if (facets.length > 0) record.facets = facets;
    const lang = postLanguage(properties);
    if (lang) record.langs = [lang];
    if (images.length > 0) {
      record.embed = { $type: "app.bsky.embed.images", images };
    } else if (link) {
      record.embed = { $type: "app.bsky.embed.external", external: linkCard(properties, publication, link) };
    }
    return record;
  }

  /** Runs `work` with a session, signing in again once if Bluesky says the session has expired. */
  async #withSession<T>(api: BlueskyApi, work: (session: BlueskySession) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const session = await this.#currentSession(api);
      try {
        return await work(session);
      } catch (error) {
        const expired = error instanceof SyndicationError && sessionErrors.has(error.code ?? "");
        if (!expired || attempt > 0) throw error;
        this.#session = undefined;
      }
    }
  }

  #currentSession(api: BlueskyApi): Promise<BlueskySession> {
    if (!this.#session) {
      const signingIn = api.createSession(this.#options.handle, this.#options.password);
      this.#session = signingIn;
      // A failed sign-in is not kept: the next post tries again.
      signingIn.catch(() => {
        if (this.#session === signingIn) this.#session = undefined;
      });
    }
    return this.#session;
  }
}

interface Image {
  alt: string;
  image: BlobRef;
  aspectRatio?: { width: number; height: number };
}

/** The post's own `lang` when it is a language tag (BCP 47: "en", "de-CH"), as Bluesky's `langs` takes. */
function postLanguage(properties: PostProperties): string | undefined {
  const lang = firstString(properties, "lang")?.replace(/_/g, "-");
  return lang && /^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/i.test(lang) ? lang : undefined;
}

/** The link card shown under a post without images: the post's title and the start of its text. */
function linkCard(properties: PostProperties, publication: Publication, uri: string) {
  const title = firstString(properties, "name") ?? publication.name;
  const text = firstString(properties, "summary") ?? contentText(properties) ?? "";
  const description =
    countGraphemes(text) <= cardDescriptionGraphemes
      ? text
      : (cutToFit(text, (cut) => countGraphemes(cut) <= cardDescriptionGraphemes) ?? "");
  return { uri, title, description };
}
