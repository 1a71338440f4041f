// Posts that live on another Micropub server (Indiekit, WordPress, micro.blog, another possekit),
// syndicated by this one: each poll lists the remote's newest posts (q=source), keeps them as posts
// from elsewhere (KnownPosts, origin `micropub:<name>`), so that the core sends, follows and writes
// back their copies as it does the site's own, and carries the copies' links back to the remote
// with a Micropub update (link-merge.ts), as Indiekit's own syndicate endpoint does.
//
// Nothing is lost between the copy and the write-back, and nothing is sent twice: the turns, the
// background write-back and the write-backs owed are link-write-back.ts's, which a feed's own site
// shares (src/sources/feeds). Every poll also writes back what the remote has not confirmed, whether
// it was down when the copy was made or the process stopped in between.
//
// @example
//   const source = new MicropubSource({ name: "blog", pollSeconds: 300, recentPosts: 200, client,
//                                       database, known: server.knownPosts, posts: server.postSource, logger });
//   server.knownPosts.addOrigin(source); // writeBack after each copy
//   new Scheduler(syndication, logger, { polled: () => [source] }); // polled when due
import type { Database } from "../../contract/database.ts";
import type { KnownPosts, PostOrigin } from "../../contract/known-posts.ts";
import type { Logger } from "../../contract/logger.ts";
import type { PolledSource } from "../../contract/polled-source.ts";
import type { PostSource } from "../../contract/post-source.ts";
import type { Post, PostUpdate } from "../../contract/posts.ts";
import { mergeLinks } from "./link-merge.ts";
import { LinkWriteBack, type LinkWriteBackReport } from "./link-write-back.ts";
import type { MicropubClient } from "./micropub-client.ts";
import { micropubOrigin } from "./micropub-source-options.ts";
import type { RemotePost } from "./remote-post.ts";

/** Properties the remote changes on every update (Indiekit's `updated`): no change of the post's. */
const REMOTE_BOOKKEEPING = ["updated"];

export interface MicropubSourceDependencies {
  name: string;
  pollSeconds: number;
  recentPosts: number;
  client: MicropubClient;
  database: Database;
  known: KnownPosts;
  /** The core's post source: changes of the row's links made on the remote are written through it. */
  posts: PostSource;
  logger: Logger;
  /** Milliseconds; Date.now unless a test gives its clock. */
  now?: () => number;
  /** Aborted when the server shuts down (the client's requests end with it too). */
  signal?: AbortSignal;
}

/** What one poll did, for the log and the tests. */
export interface PollSummary {
  listed: number;
  recorded: { new: number; changed: number; unchanged: number };
  skipped: number;
  writtenBack: number;
}

export type MicropubSourceReport = LinkWriteBackReport;

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class MicropubSource implements PolledSource, PostOrigin {
  readonly origin: string;
  readonly endpoint: string;
  readonly #deps: MicropubSourceDependencies;
  /** The links carried both ways, the turns, the write-backs owed (link-write-back.ts). */
  readonly #links: LinkWriteBack;

  constructor(deps: MicropubSourceDependencies) {
    this.#deps = deps;
    this.origin = micropubOrigin(deps.name);
    this.endpoint = deps.client.endpoint;
    this.#links = new LinkWriteBack({
      origin: this.origin,
      client: deps.client,
      database: deps.database,
      known: deps.known,
      logger: deps.logger,
      merge: mergeLinks,
      posts: deps.posts,
      ...(deps.now ? { now: deps.now } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
  }

  nextPollAt(): Date | null {
    return this.#links.nextPollAt();
  }

  pollIfDue(): Promise<void> {
    return this.#links.pollIfDue(
      this.#deps.pollSeconds * 1000,
      () => this.poll(),
      `read the posts of ${this.origin}`,
    );
  }

  /** Resolves once nothing this source started is under way (for a shutdown, after aborting). */
  idle(): Promise<void> {
    return this.#links.idle();
  }

  /**
   * One poll: the newest posts (up to recentPosts) kept and their links merged, then every post
   * whose write-back has not reached the remote. Throws MicropubSourceError when the remote refuses
   * the token or cannot be reached; a post the remote refuses alone is logged and left for the next.
   */
  async poll(): Promise<PollSummary> {
    const summary: PollSummary = {
      listed: 0,
      recorded: { new: 0, changed: 0, unchanged: 0 },
      skipped: 0,
      writtenBack: 0,
    };
    const seen = new Set<string>();
    for await (const page of this.#deps.client.pages({ maxPosts: this.#deps.recentPosts })) {
      summary.skipped += page.skipped;
      for (const remote of page.posts) {
        if (seen.has(remote.url)) continue;
        seen.add(remote.url);
        summary.listed += 1;
        await this.#links.one(remote.url, async () => {
          const outcome = await this.#mirror(remote);
          if (outcome === "skipped") summary.skipped += 1;
          else {
            summary.recorded[outcome.recorded] += 1;
            if (outcome.writtenBack) summary.writtenBack += 1;
          }
        });
      }
    }
    summary.writtenBack += await this.#links.writeBackDrifted(seen);
    return summary;
  }

  /** The core wrote links back to one of this source's posts: carried to the remote (link-write-back.ts). */
  writeBack(post: Post, update: PostUpdate): Promise<void> {
    return this.#links.writeBack(post, update);
  }

  /** What the page and /health show of this source. */
  report(): Promise<MicropubSourceReport> {
    return this.#links.report();
  }

  /** Keeps one remote post as a post from elsewhere and merges its links. */
  async #mirror(
    remote: RemotePost,
  ): Promise<"skipped" | { recorded: "new" | "changed" | "unchanged"; writtenBack: boolean }> {
    // Indiekit keeps a deleted post, stripped to its URL and date and marked `deleted`: not a post
    // to send, nor an edit to carry to its copies (which would empty them). possekit leaves it out.
    if (remote.deleted) return "skipped";
    const published = new Date(String(remote.properties.published ?? ""));
    if (Number.isNaN(published.getTime())) {
      this.#deps.logger.warn(`${remote.url} on ${this.endpoint} has no valid published date; skipped`);
      return "skipped";
    }
    const properties = { ...remote.properties };
    for (const name of REMOTE_BOOKKEEPING) delete properties[name];
    const draft = properties["post-status"] === "draft";
    let recorded: Awaited<ReturnType<KnownPosts["record"]>>;
    try {
      recorded = await this.#deps.known.record({
        origin: this.origin,
        url: remote.url,
        properties,
        published,
        status: draft ? "draft" : "published",
      });
    } catch (error) {
      // A URL of this site's own posts, or of another source's: never taken over.
      this.#deps.logger.warn(`${remote.url} on ${this.endpoint} is not kept: ${describe(error)}`);
      return "skipped";
    }
    const writtenBack = await this.#links.mergeListed(recorded.post, remote);
    return { recorded: recorded.outcome, writtenBack };
  }
}
