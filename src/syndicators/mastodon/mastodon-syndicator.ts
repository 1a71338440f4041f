// @possekit/syndicator-mastodon: posts a status for each post (with up to 4 photos and their alt
// text), or favourites, boosts or replies to a status when the post likes, reposts or replies to one.
import type {
  PluginMeta,
  PostProperties,
  Publication,
  Server,
  SyndicateOptions,
  SyndicatorInfo,
  SyndicatorPlugin,
} from "../../server/contract.ts";
import { hashtags } from "../shared/hashtags.ts";
import type { Target } from "../shared/http.ts";
import { categories, firstUrl, permalink, photos, postLanguage, postText } from "../shared/jf2.ts";
import { fetchPhoto } from "../shared/photos.ts";
import { cutAltText } from "./mastodon-alt-text.ts";
import { MastodonApi, statusUrl } from "./mastodon-api.ts";
import { InstanceLimitsCache } from "./mastodon-instance.ts";
import { type MastodonOptions, mastodonPluginId, parseMastodonOptions } from "./mastodon-options.ts";
import { resolveStatusId } from "./mastodon-status-id.ts";
import { statusText } from "./mastodon-status-text.ts";

/** Mastodon's documented limit for an image. */
const maxPhotoBytes = 16 * 1024 * 1024;

export class MastodonSyndicator implements SyndicatorPlugin {
  static readonly packageName = "@possekit/syndicator-mastodon";
  readonly id = mastodonPluginId;
  readonly name = "Mastodon";
  readonly meta: PluginMeta = {
    url: import.meta.url,
    description: "Posts a copy of each post to a Mastodon account",
  };
  /** The options, without the access token. */
  readonly options: Record<string, unknown>;
  readonly info: SyndicatorInfo;
  /** Mastodon keeps an Idempotency-Key for an hour; favourites and boosts are idempotent anyway. */
  readonly honoursIdempotencyKey = true;
  readonly #options: MastodonOptions;
  /** The host's `fetch.allowPrivate`, read in init(). */
  #allowPrivateFetch = false;
  /** The host's uploads, read from storage rather than fetched from ourselves. */
  #media: Server["media"] | undefined;
  readonly #limits: InstanceLimitsCache;

  constructor(options: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env) {
    this.#options = parseMastodonOptions(options, env);
    const { url, user, accessToken: _secret, ...rest } = this.#options;
    this.options = { url, user, ...rest };
    this.#limits = new InstanceLimitsCache(url);
    const host = new URL(url).host;
    this.info = {
      uid: `${url}/@${user}`,
      name: `@${user}@${host}`,
      service: { name: "Mastodon", url: `${url}/` },
      user: { name: `@${user}@${host}`, url: `${url}/@${user}` },
    };
  }

  init(server: Server): void {
    this.#allowPrivateFetch = server.config.fetch.allowPrivate;
    this.#media = server.media;
    server.addSyndicator(this);
  }

  async syndicate(
    properties: PostProperties,
    publication: Publication,
    { idempotencyKey, signal }: SyndicateOptions,
  ): Promise<string> {
    const target: Target = { name: "Mastodon", signal };
    const { url: instanceUrl } = this.#options;
    const api = new MastodonApi(instanceUrl, this.#options.accessToken, target);

    const likeOf = firstUrl(properties, "like-of", publication.me);
    if (likeOf)
      return statusUrl(await api.favourite(await resolveStatusId(api, instanceUrl, likeOf, "like")));
    const repostOf = firstUrl(properties, "repost-of", publication.me);
    if (repostOf)
      return statusUrl(await api.reblog(await resolveStatusId(api, instanceUrl, repostOf, "boost")));

    const inReplyTo = firstUrl(properties, "in-reply-to", publication.me);
    const inReplyToId = inReplyTo
      ? await resolveStatusId(api, instanceUrl, inReplyTo, "reply to")
      : undefined;

    const limits = await this.#limits.get(target);
    const mediaIds: string[] = [];
    for (const photo of photos(properties, publication.me).slice(0, limits.maxMedia)) {
      const fetched = await fetchPhoto(target, photo, maxPhotoBytes, {
        ownSite: publication.me,
        allowPrivate: this.#allowPrivateFetch,
        media: this.#media,
      });
      const alt = fetched.alt === undefined ? undefined : cutAltText(fetched.alt, limits.altTextLimit);
      mediaIds.push(await api.uploadMedia({ ...fetched, ...(alt === undefined ? {} : { alt }) }));
    }
    const status = statusText({
      text: postText(properties),
      hashtags: this.#options.includeCategories ? hashtags(categories(properties)) : "",
      permalink: permalink(properties),
      includePermalink: this.#options.includePermalink,
      characterLimit: this.#options.characterLimit ?? limits.maxCharacters,
      urlLength: limits.charactersPerUrl,
    });
    const language = this.#options.language ?? postPrimaryLanguage(properties);
    const created = await api.postStatus({
      status,
      mediaIds,
      idempotencyKey,
      visibility: this.#options.visibility,
      ...(language ? { language } : {}),
      ...(inReplyToId ? { inReplyToId } : {}),
    });
    return statusUrl(created);
  }
}

/** The post's own `lang`, when it is an ISO 639 code Mastodon accepts ("en", "de-CH" → "de"). */
/** Mastodon takes an ISO 639 code: the primary subtag of the post's language. */
function postPrimaryLanguage(properties: PostProperties): string | undefined {
  return postLanguage(properties)?.split("-")[0]?.toLowerCase();
}
