// @possekit/syndicator-micropub: cross-posts each post to another site (micro.blog or any server
// that speaks Micropub) and returns the address of the copy from the Location header.
import {
  micropubDeleteBody,
  micropubErrorWords,
  micropubHeaders,
  micropubQueryUrl,
} from "../../contract/micropub-wire.ts";
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
import { credentialSetting } from "../../contract/syndicator-kit.ts";
import { refusal, send, type Target } from "../shared/http.ts";
import { micropubAccount } from "./micropub-account.ts";
import { composeMicropub } from "./micropub-compose.ts";
import { type MicropubOptions, micropubPluginId, parseMicropubOptions } from "./micropub-options.ts";
import { type MicropubRequest, micropubUpdate } from "./micropub-request.ts";

/** A delete answered with these says the copy is not there (any more): that counts as deleted. */
const goneStatuses = new Set([404, 410]);

export class MicropubSyndicator implements SyndicatorPlugin {
  static readonly packageName = "@possekit/syndicator-micropub";
  /** Connecting and disconnecting an account from the Accounts page. */
  static readonly account = micropubAccount;
  readonly id = micropubPluginId;
  readonly name = "Micropub";
  readonly meta: PluginMeta = {
    url: import.meta.url,
    description: "Cross-posts each post to another site's Micropub endpoint",
  };
  /** The options, without the access token. */
  readonly options: Record<string, unknown>;
  readonly info: SyndicatorInfo;
  /** An edit replaces the copy's photos with the post's, each with its alt text (decision 0060). */
  readonly updatesPhotos = true;
  /** Micropub has no idempotency key: a repeat makes a second copy. */
  readonly honoursIdempotencyKey = false;
  readonly #options: MicropubOptions;
  readonly credentialSetting: string;
  readonly addressSetting = `"${MicropubSyndicator.packageName}".micropubEndpoint`;

  constructor(options: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env) {
    this.#options = parseMicropubOptions(options, env);
    const { micropubEndpoint } = this.#options;
    const endpoint = new URL(micropubEndpoint);
    const name = this.#options.name ?? `Micropub (${endpoint.host})`;
    this.credentialSetting = credentialSetting(MicropubSyndicator.packageName, options, {
      options: ["accessToken"],
      environment: ["MICROPUB_ACCESS_TOKEN"],
    });
    this.options = {
      micropubEndpoint,
      name,
      uid: this.#options.uid ?? micropubEndpoint,
      ...(this.#options.template ? { template: options.template } : {}),
      ...(this.#options.appendUrl ? { appendUrl: this.#options.appendUrl } : {}),
    };
    this.info = {
      uid: this.#options.uid ?? micropubEndpoint,
      name,
      service: { name, url: `${endpoint.origin}/` },
    };
  }

  init(server: Server): void {
    server.addSyndicator(this);
  }

  /** The endpoint answers q=config to the token (a Micropub server must): nothing is created. */
  async verify({ signal }: { signal: AbortSignal }): Promise<void> {
    const target: Target = { name: this.info.name, signal };
    const { micropubEndpoint, accessToken } = this.#options;
    const response = await send(target, micropubQueryUrl(micropubEndpoint, { q: "config" }), {
      headers: micropubHeaders(accessToken),
      redirect: "manual",
    });
    if (!response.ok) throw await refusal(target, response, micropubErrorWords);
    await response.body?.cancel().catch(() => {});
  }

  /** What syndicate() would send now: the content of the create request, and its photos. */
  preview(properties: PostProperties, publication: Publication, options: PreviewOptions = {}): CopyPreview {
    return composeMicropub(properties, publication, this.#options, options).preview;
  }

  async syndicate(
    properties: PostProperties,
    publication: Publication,
    options: SyndicateOptions,
  ): Promise<string> {
    const target: Target = { name: this.info.name, signal: options.signal };
    const { request } = composeMicropub(properties, publication, this.#options, options);
    const response = await this.#post(target, request);
    if (response.status !== 201 && response.status !== 202) {
      if (response.ok) {
        await response.body?.cancel().catch(() => {});
        throw new SyndicationError(
          `${target.name}: ${response.status} the endpoint answered without creating a post (Micropub answers 201 or 202 with a Location)`,
          { status: response.status, permanent: true },
        );
      }
      throw await refusal(target, response, micropubErrorWords);
    }
    await response.body?.cancel().catch(() => {});
    const location = response.headers.get("location");
    if (!location) {
      throw new SyndicationError(
        `${target.name}: ${response.status} the endpoint created the post but did not say where (no Location header)`,
        { status: response.status, permanent: true },
      );
    }
    return new URL(location, this.#options.micropubEndpoint).href;
  }

  /**
   * Replaces on the copy exactly the properties a create would send now (its content, name, photos…),
   * as the preview shows them. The spec answers 200 or 204, or 201 when the copy's URL changed.
   */
  async update(
    properties: PostProperties,
    publication: Publication,
    options: CopyChangeOptions,
  ): Promise<void> {
    const { url, signal } = options;
    const target: Target = { name: this.info.name, signal };
    const copy = composeMicropub(properties, publication, this.#options, options);
    const response = await this.#post(target, micropubUpdate(url, copy.properties));
    if (!response.ok) throw await refusal(target, response, micropubErrorWords);
    await response.body?.cancel().catch(() => {});
  }

  /**
   * Deletes the copy (action=delete, form-encoded as every server takes it); the spec answers 200 or
   * 204. A 404 or 410 means the copy is gone already, which counts as deleted. A 400 does not: the
   * spec's invalid_request stands for any request the server will not carry out (a URL it does not
   * know, or deletes it does not support), so the copy may still be there and the user is told.
   */
  async delete(
    _properties: PostProperties,
    _publication: Publication,
    { url, signal }: CopyChangeOptions,
  ): Promise<void> {
    const target: Target = { name: this.info.name, signal };
    const response = await this.#post(target, {
      contentType: "application/x-www-form-urlencoded",
      body: micropubDeleteBody(url),
    });
    if (response.ok || goneStatuses.has(response.status)) {
      await response.body?.cancel().catch(() => {});
      return;
    }
    throw await refusal(target, response, micropubErrorWords);
  }

  /**
   * A request to the endpoint with the token; its answer is the caller's to judge. The remote
   * Micropub source shares the wire, not this transport (decision 0065).
   */
  #post(target: Target, request: MicropubRequest): Promise<Response> {
    const { micropubEndpoint, accessToken } = this.#options;
    return send(target, micropubEndpoint, {
      method: "POST",
      headers: micropubHeaders(accessToken, request.contentType),
      // Not redirected (src/syndicators/shared/http.ts: no request with a body is): a redirect
      // would turn the POST into a GET and lose the request; the endpoint's own answer counts.
      body: request.body,
    });
  }
}
