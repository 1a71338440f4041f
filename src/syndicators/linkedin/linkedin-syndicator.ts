// @possekit/syndicator-linkedin: posts each post to a LinkedIn member's feed with the Posts API,
// as commentary and an article card for the post (title, description, uploaded thumbnail). LinkedIn
// has no idempotency key: a create whose answer was lost is an unknown outcome, never resent by
// itself (the core asks the user whether it appeared). Edits change the commentary only.
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
} from "../../contract/syndicator.ts";
import { credentialSetting, HOST_NOT_JOINED, joinHost } from "../../contract/syndicator-kit.ts";
import type { Target } from "../shared/http.ts";
import { fetchPhoto } from "../shared/photos.ts";
import { shownOptions } from "../shared/shown-options.ts";
import { linkedinAccount } from "./linkedin-account.ts";
import { LinkedinApi, postUrl, postUrnOf } from "./linkedin-api.ts";
import { composeLinkedin } from "./linkedin-compose.ts";
import { littleCommentary } from "./linkedin-little-text.ts";
import { type LinkedinOptions, linkedinPluginId, parseLinkedinOptions } from "./linkedin-options.ts";

/** The largest thumbnail fetched; LinkedIn's own limit is in pixels (36 152 320), not bytes. */
const maxThumbnailBytes = 20 * 1024 * 1024;

export class LinkedinSyndicator implements SyndicatorPlugin {
  static readonly packageName = "@possekit/syndicator-linkedin";
  /** Connecting and disconnecting an account from the Accounts page. */
  static readonly account = linkedinAccount;
  readonly id = linkedinPluginId;
  readonly name = "LinkedIn";
  readonly meta: PluginMeta = {
    url: import.meta.url,
    description: "Posts a copy of each post to a LinkedIn member's feed",
  };
  readonly options: Record<string, unknown>;
  readonly info: SyndicatorInfo;
  /** The Posts API has no idempotency key: an unknown outcome waits for the user. */
  readonly honoursIdempotencyKey = false;
  readonly credentialSetting: string;
  readonly addressSetting = `"${LinkedinSyndicator.packageName}".apiUrl`;
  readonly #options: LinkedinOptions;
  readonly #now: () => number;
  #host = HOST_NOT_JOINED;

  constructor(
    options: Record<string, unknown> = {},
    env: NodeJS.ProcessEnv = process.env,
    /** The clock a 429 waits by (until the next 00:00 UTC). */
    now: () => number = Date.now,
  ) {
    this.#options = parseLinkedinOptions(options, env);
    this.#now = now;
    this.options = shownOptions(this.#options, options, ["accessToken"]);
    this.credentialSetting = credentialSetting(LinkedinSyndicator.packageName, options, {
      options: ["accessToken"],
      environment: ["LINKEDIN_ACCESS_TOKEN"],
    });
    const name = this.#options.name ?? this.#options.author;
    this.info = {
      uid: `https://www.linkedin.com/#${this.#options.author}`,
      name: `${name} on LinkedIn`,
      service: { name: "LinkedIn", url: "https://www.linkedin.com/" },
      user: { name },
      ...(this.#options.visibility === "CONNECTIONS" ? { publicCopies: false } : {}),
    };
  }

  init(server: Server): void {
    this.#host = joinHost(server, this);
  }

  #api(signal: AbortSignal): LinkedinApi {
    const target: Target = { name: "LinkedIn", signal };
    const { apiUrl, accessToken, linkedinVersion } = this.#options;
    return new LinkedinApi(apiUrl, accessToken, linkedinVersion, target, this.#now);
  }

  /** The token is accepted and is the configured member's: nothing is posted. */
  async verify({ signal }: { signal: AbortSignal }): Promise<void> {
    const { sub } = await this.#api(signal).userinfo();
    if (`urn:li:person:${sub}` !== this.#options.author)
      throw new SyndicationError(
        `LinkedIn: the access token belongs to urn:li:person:${sub}, not ${this.#options.author}`,
        {
          permanent: true,
        },
      );
  }

  preview(properties: PostProperties, publication: Publication, options: PreviewOptions = {}): CopyPreview {
    return composeLinkedin(properties, publication, this.#options, options).preview;
  }

  async syndicate(
    properties: PostProperties,
    publication: Publication,
    options: SyndicateOptions,
  ): Promise<string> {
    const copy = composeLinkedin(properties, publication, this.#options, options);
    if (copy.unsupported)
      throw new SyndicationError(
        `LinkedIn: a ${copy.unsupported.kind} of ${copy.unsupported.url} cannot be copied (the Posts API has no such thing for other sites)`,
        { permanent: true },
      );
    const api = this.#api(options.signal);
    const { author } = this.#options;
    let thumbnail: string | undefined;
    if (copy.card?.image) {
      const target: Target = { name: "LinkedIn", signal: options.signal };
      const photo = await fetchPhoto(target, { url: copy.card.image }, maxThumbnailBytes, {
        ownSite: publication.me,
        allowPrivate: this.#host.allowPrivate,
        media: this.#host.media,
      });
      thumbnail = await api.uploadImage(author, photo);
    }
    const urn = await api.createPost({
      author,
      commentary: littleCommentary(copy.text),
      visibility: this.#options.visibility,
      ...(copy.card
        ? {
            article: {
              source: copy.card.source,
              title: copy.card.title,
              description: copy.card.description,
              ...(thumbnail ? { thumbnail } : {}),
            },
          }
        : {}),
    });
    return postUrl(urn);
  }

  /**
   * Changes the commentary to what syndicate() would send now. The card and its thumbnail are
   * kept as they were: the Posts API edits only the commentary (and a few settings).
   */
  async update(
    properties: PostProperties,
    publication: Publication,
    options: CopyChangeOptions,
  ): Promise<void> {
    const urn = postUrnOf(options.url);
    if (!urn) return;
    const copy = composeLinkedin(properties, publication, this.#options, options);
    if (copy.unsupported) return;
    await this.#api(options.signal).updateCommentary(urn, littleCommentary(copy.text));
  }

  /** Deletes the post; one already gone counts as deleted. */
  async delete(
    _properties: PostProperties,
    _publication: Publication,
    options: CopyChangeOptions,
  ): Promise<void> {
    const urn = postUrnOf(options.url);
    if (!urn) return;
    await this.#api(options.signal).deletePost(urn);
  }
}
