// @possekit/syndicator-threads: posts a copy of each post to a Threads account through Meta's
// Threads API. Publishing is two steps (developers.facebook.com/docs/threads/posts): a container
// is created (POST /{user-id}/threads), its id is saved with the send (checkpoint), then it is
// published (POST /{user-id}/threads_publish). An answer that never came is resolved from the
// container (GET /{container-id}?fields=status,id; troubleshooting): PUBLISHED gives the post,
// FINISHED is published now, EXPIRED or ERROR was never seen and a new container is made. A
// container is published at most once, so a retry never posts twice.
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
import { credentialSetting, joinHost } from "../../contract/syndicator-kit.ts";
import type { Target } from "../shared/http.ts";
import { shownOptions } from "../shared/shown-options.ts";
import { threadsAccount } from "./threads-account.ts";
import { LINK_ERROR_CODE, type PublishingQuota, ThreadsApi } from "./threads-api.ts";
import { composeThreads } from "./threads-compose.ts";
import { parseThreadsOptions, type ThreadsOptions, threadsPluginId } from "./threads-options.ts";
import {
  type CredentialExpiry,
  DatabaseTokenStore,
  MemoryTokenStore,
  TableOrMemoryStore,
  ThreadsTokenKeeper,
  type ThreadsTokenStore,
} from "./threads-tokens.ts";

/** What the send saves before publishing: the container that is, or will be, the post. */
interface Progress {
  container: string;
}

function progressOf(resumeFrom: string | undefined): Progress | undefined {
  if (!resumeFrom) return undefined;
  try {
    const parsed = JSON.parse(resumeFrom) as { container?: unknown };
    return typeof parsed.container === "string" ? { container: parsed.container } : undefined;
  } catch {
    return undefined;
  }
}

export interface ThreadsClock {
  now: () => number;
}

export class ThreadsSyndicator implements SyndicatorPlugin {
  static readonly packageName = "@possekit/syndicator-threads";
  static readonly account = threadsAccount;
  readonly id = threadsPluginId;
  readonly name = "Threads";
  readonly meta: PluginMeta = {
    url: import.meta.url,
    description: "Posts a copy of each post to a Threads account",
  };
  readonly options: Record<string, unknown>;
  readonly info: SyndicatorInfo;
  /** The container saved before publishing makes a resend safe (see above). */
  readonly honoursIdempotencyKey = true;
  readonly credentialSetting: string;
  readonly #options: ThreadsOptions;
  #store: ThreadsTokenStore = new MemoryTokenStore();
  readonly #tokens: ThreadsTokenKeeper;

  constructor(
    options: Record<string, unknown> = {},
    env: NodeJS.ProcessEnv = process.env,
    clock: ThreadsClock = { now: Date.now },
  ) {
    this.#options = parseThreadsOptions(options, env);
    this.options = shownOptions(this.#options, options, ["accessToken"]);
    this.credentialSetting = credentialSetting(ThreadsSyndicator.packageName, options, {
      options: ["accessToken"],
      environment: ["THREADS_ACCESS_TOKEN"],
    });
    const { username, userId, apiUrl } = this.#options;
    this.info = {
      uid: `https://www.threads.com/@${username}`,
      name: `@${username} (Threads)`,
      service: { name: "Threads", url: "https://www.threads.com/" },
      user: { name: `@${username}`, url: `https://www.threads.com/@${username}` },
    };
    const issuedAt = this.#options.tokenIssuedAt ? Date.parse(this.#options.tokenIssuedAt) : undefined;
    this.#tokens = new ThreadsTokenKeeper(
      userId,
      { token: this.#options.accessToken, ...(issuedAt === undefined ? {} : { issuedAt }) },
      () => this.#store,
      (token) =>
        new ThreadsApi(apiUrl, token, {
          name: "Threads",
          signal: AbortSignal.timeout(30_000),
        }).refreshToken(),
      clock.now,
    );
  }

  init(server: Server): void {
    joinHost(server, this);
    // A refreshed token outlives a restart only in the database (sealed); without one, in memory.
    if (server.database && server.secretSealer)
      this.#store = new TableOrMemoryStore(new DatabaseTokenStore(server.database, server.secretSealer));
  }

  async #api(signal: AbortSignal): Promise<ThreadsApi> {
    const target: Target = { name: "Threads", signal };
    return new ThreadsApi(this.#options.apiUrl, await this.#tokens.token(), target);
  }

  /** The token is accepted and is the configured account's; nothing is posted. */
  async verify({ signal }: { signal: AbortSignal }): Promise<void> {
    const profile = await (await this.#api(signal)).profile();
    if (profile.id !== this.#options.userId)
      throw new SyndicationError(
        `Threads: the token belongs to @${profile.username}, not @${this.#options.username}`,
        {
          permanent: true,
        },
      );
  }

  /**
   * The scheduler's check, with nobody watching: refreshes a token a day old, and says when one
   * nears its end because refreshing fails.
   */
  async maintainCredentials(): Promise<CredentialExpiry | undefined> {
    await this.#tokens.token();
    return this.#tokens.expiry();
  }

  /** GET threads_publishing_limit: posts published in the last 24 hours, of 250. */
  async publishingQuota({ signal }: { signal: AbortSignal }): Promise<PublishingQuota> {
    return (await this.#api(signal)).publishingQuota(this.#options.userId);
  }

  preview(properties: PostProperties, publication: Publication, options: PreviewOptions = {}): CopyPreview {
    return composeThreads(properties, publication, this.#options, options).preview;
  }

  /** Threads has no edit API: a copy stays as it was sent ("kept"). */
  async update(): Promise<void> {}

  /** DELETE /{media-id}, the post found by its permalink among the account's posts; one gone counts as deleted. */
  async delete(
    _properties: PostProperties,
    _publication: Publication,
    { url, signal }: CopyChangeOptions,
  ): Promise<void> {
    const api = await this.#api(signal);
    const post = (await api.recentPosts(this.#options.userId)).find(
      (candidate) => candidate.permalink === url,
    );
    if (!post) return;
    await api.deletePost(post.id);
  }

  async syndicate(
    properties: PostProperties,
    publication: Publication,
    options: SyndicateOptions,
  ): Promise<string> {
    const { signal, checkpoint } = options;
    const api = await this.#api(signal);
    const { userId } = this.#options;
    const earlier = progressOf(options.resumeFrom);
    if (earlier) {
      // The earlier attempt made this container and may have published it: its status says.
      const container = await api.containerStatus(earlier.container);
      if (container.status === "PUBLISHED") return api.permalink(container.id);
      if (container.status === "FINISHED") return api.permalink(await api.publish(userId, earlier.container));
      if (container.status === "IN_PROGRESS")
        throw new SyndicationError("Threads: the container is still being processed", {
          permanent: false,
          retryAfterSeconds: 60,
        });
      // EXPIRED or ERROR: never published; a new container follows.
    }
    const words = {
      ...(options.text === undefined ? {} : { text: options.text }),
      ...(options.site === undefined ? {} : { site: options.site }),
    };
    let copy = composeThreads(properties, publication, this.#options, words);
    let containerId: string;
    try {
      containerId = await api.createContainer(userId, copy.container);
    } catch (error) {
      // A link Threads cannot read is refused with the container: the link then goes into the text.
      const refusedLink =
        error instanceof SyndicationError && error.code === LINK_ERROR_CODE && copy.container.linkAttachment;
      if (!refusedLink) throw error;
      copy = composeThreads(properties, publication, this.#options, words, true);
      containerId = await api.createContainer(userId, copy.container);
    }
    await checkpoint?.(JSON.stringify({ container: containerId } satisfies Progress));
    return api.permalink(await api.publish(userId, containerId));
  }
}
