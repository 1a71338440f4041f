// @possekit/syndicator-internet-archive: archives each post in the Wayback Machine with Save Page
// Now, and returns the address of the capture.

import { permalink } from "../../contract/jf2.ts";
import type { PluginMeta, Server, SyndicatorPlugin } from "../../contract/plugin.ts";
import { SyndicationError } from "../../contract/syndication-error.ts";
import type {
  CopyPreview,
  PostProperties,
  Publication,
  SyndicateOptions,
  SyndicatorInfo,
} from "../../contract/syndicator.ts";
import { credentialSetting } from "../../contract/syndicator-kit.ts";
import {
  type InternetArchiveOptions,
  internetArchivePluginId,
  parseInternetArchiveOptions,
} from "./internet-archive-options.ts";
import { checkKeys, savePageNow } from "./save-page-now.ts";

export class InternetArchiveSyndicator implements SyndicatorPlugin {
  static readonly packageName = "@possekit/syndicator-internet-archive";
  readonly id = internetArchivePluginId;
  readonly name = "Internet Archive";
  readonly meta: PluginMeta = {
    url: import.meta.url,
    description: "Archives each post in the Internet Archive's Wayback Machine",
  };
  /** The options, without the keys. */
  readonly options: Record<string, unknown>;
  readonly info: SyndicatorInfo;
  /**
   * A repeat makes a second capture of the same page: a snapshot, not a post anyone sees twice. So
   * an interrupted or timed-out capture is simply asked for again, as for a target with a key.
   */
  readonly honoursIdempotencyKey = true;
  readonly #options: InternetArchiveOptions;
  /** Longer than the endpoint's default: a capture takes up to two minutes. */
  readonly timeoutMs: number;
  readonly credentialSetting: string;
  readonly addressSetting = `"${InternetArchiveSyndicator.packageName}".serviceUrl`;

  constructor(options: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env) {
    this.#options = parseInternetArchiveOptions(options, env);
    this.timeoutMs = this.#options.timeoutMs;
    this.options = {
      serviceUrl: this.#options.serviceUrl,
      pollIntervalMs: this.#options.pollIntervalMs,
      timeoutMs: this.#options.timeoutMs,
      signedIn: Boolean(this.#options.accessKey),
    };
    this.credentialSetting = credentialSetting(InternetArchiveSyndicator.packageName, options, {
      options: ["accessKey", "secretKey"],
      environment: ["INTERNET_ARCHIVE_ACCESS_KEY", "INTERNET_ARCHIVE_SECRET_KEY"],
    });
    this.info = {
      uid: `${this.#options.serviceUrl}/`,
      name: "Internet Archive",
      service: { name: "Internet Archive", url: `${this.#options.serviceUrl}/` },
    };
  }

  init(server: Server): void {
    server.addSyndicator(this);
  }

  /** With keys: the archive accepts them (nothing is captured). Without keys there is nothing to check. */
  async verify({ signal }: { signal: AbortSignal }): Promise<void> {
    const { accessKey, secretKey, serviceUrl } = this.#options;
    if (!accessKey || !secretKey) return;
    await checkKeys({ name: "Internet Archive", signal }, serviceUrl, `${accessKey}:${secretKey}`);
  }

  /** The archive receives no text: it captures the post's page. */
  preview(properties: PostProperties): CopyPreview {
    const url = permalink(properties);
    return {
      over: false,
      cut: false,
      permalink: "none",
      photos: [],
      ...(url ? { action: { kind: "capture" as const, url } } : {}),
      ownText: false,
    };
  }

  async syndicate(
    properties: PostProperties,
    _publication: Publication,
    { signal, resumeFrom, checkpoint }: SyndicateOptions,
  ): Promise<string> {
    const url = permalink(properties);
    if (!url) {
      throw new SyndicationError("Internet Archive: the post has no URL to archive", { permanent: true });
    }
    const { accessKey, secretKey, serviceUrl, pollIntervalMs } = this.#options;
    return savePageNow(
      { name: "Internet Archive", signal },
      {
        serviceUrl,
        credentials: accessKey && secretKey ? `${accessKey}:${secretKey}` : undefined,
        pollIntervalMs,
      },
      url,
      { ...(resumeFrom ? { resumeFrom } : {}), ...(checkpoint ? { checkpoint } : {}) },
    );
  }
}
