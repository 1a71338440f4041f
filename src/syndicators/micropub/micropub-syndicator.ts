// @possekit/syndicator-micropub: cross-posts each post to another site (micro.blog or any server
// that speaks Micropub) and returns the address of the copy from the Location header.
import { z } from "zod";
import type {
  CopyPreview,
  PluginMeta,
  PostProperties,
  PreviewOptions,
  Publication,
  Server,
  SyndicateOptions,
  SyndicatorInfo,
  SyndicatorPlugin,
} from "../../server/contract.ts";
import { refusal, send, type Target, type TargetMessage } from "../shared/http.ts";
import { SyndicationError } from "../syndication-error.ts";
import { composeMicropub } from "./micropub-compose.ts";
import { type MicropubOptions, micropubPluginId, parseMicropubOptions } from "./micropub-options.ts";

const micropubError = z.object({ error: z.string().optional(), error_description: z.string().optional() });

/** Micropub errors are {"error": "invalid_request", "error_description": "…"} (OAuth style). */
function micropubMessage(body: unknown): TargetMessage | undefined {
  const parsed = micropubError.safeParse(body);
  if (!parsed.success) return undefined;
  const { error, error_description: description } = parsed.data;
  const message = description ?? error;
  return { ...(message ? { message } : {}), ...(error ? { code: error } : {}) };
}

export class MicropubSyndicator implements SyndicatorPlugin {
  static readonly packageName = "@possekit/syndicator-micropub";
  readonly id = micropubPluginId;
  readonly name = "Micropub";
  readonly meta: PluginMeta = {
    url: import.meta.url,
    description: "Cross-posts each post to another site's Micropub endpoint",
  };
  /** The options, without the access token. */
  readonly options: Record<string, unknown>;
  readonly info: SyndicatorInfo;
  /** Micropub has no idempotency key: a repeat makes a second copy. */
  readonly honoursIdempotencyKey = false;
  readonly #options: MicropubOptions;
  readonly credentialSetting: string;

  constructor(options: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env) {
    this.#options = parseMicropubOptions(options, env);
    const { micropubEndpoint } = this.#options;
    const endpoint = new URL(micropubEndpoint);
    const name = this.#options.name ?? `Micropub (${endpoint.host})`;
    this.credentialSetting =
      options.accessToken === undefined
        ? "MICROPUB_ACCESS_TOKEN"
        : `"${MicropubSyndicator.packageName}".accessToken`;
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
    const url = new URL(micropubEndpoint);
    url.searchParams.set("q", "config");
    const response = await send(target, url.href, {
      headers: { accept: "application/json", authorization: `Bearer ${accessToken}` },
      redirect: "manual",
    });
    if (!response.ok) throw await refusal(target, response, micropubMessage);
    await response.body?.cancel().catch(() => {});
  }

  /** What syndicate() would send now: the content of the create request, and its photos. */
  preview(properties: PostProperties, publication: Publication, options: PreviewOptions = {}): CopyPreview {
    return composeMicropub(properties, publication, this.#options, options.text).preview;
  }

  async syndicate(
    properties: PostProperties,
    publication: Publication,
    { signal, text }: SyndicateOptions,
  ): Promise<string> {
    const target: Target = { name: this.info.name, signal };
    const { micropubEndpoint, accessToken } = this.#options;
    const { request } = composeMicropub(properties, publication, this.#options, text);
    const response = await send(target, micropubEndpoint, {
      method: "POST",
      headers: {
        accept: "application/json",
        authorization: `Bearer ${accessToken}`,
        "content-type": request.contentType,
      },
      body: request.body,
      // A redirect would turn the POST into a GET and lose the post; the endpoint's own answer counts.
      redirect: "manual",
    });
    if (response.status !== 201 && response.status !== 202) {
      if (response.ok) {
        await response.body?.cancel().catch(() => {});
        throw new SyndicationError(
          `${target.name}: ${response.status} the endpoint answered without creating a post (Micropub answers 201 or 202 with a Location)`,
          { status: response.status, permanent: true },
        );
      }
      throw await refusal(target, response, micropubMessage);
    }
    await response.body?.cancel().catch(() => {});
    const location = response.headers.get("location");
    if (!location) {
      throw new SyndicationError(
        `${target.name}: ${response.status} the endpoint created the post but did not say where (no Location header)`,
        { status: response.status, permanent: true },
      );
    }
    return new URL(location, micropubEndpoint).href;
  }
}
