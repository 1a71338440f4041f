// Posts that live on another Micropub server (Indiekit, WordPress, micro.blog, another possekit),
// syndicated by this one: each poll lists the remote's newest posts (q=source), keeps them as posts
// from elsewhere (KnownPosts, origin `micropub:<name>`), so that the core sends, follows and writes
// back their copies as it does the site's own, and carries the copies' links back to the remote
// with a Micropub update (link-merge.ts), as Indiekit's own syndicate endpoint does.
//
// Nothing is lost between the copy and the write-back: the row holds the link as soon as the copy
// is made (the core's ledger guarantees the send), and until the remote confirms it, the row
// differs from what both sides last agreed on (micropub-source-state.ts). Every poll looks for such
// posts and writes them back, whether the remote was down when the copy was made or the process
// stopped in between.
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
import { type LinkState, linkStateOf, mergeLinks } from "./link-merge.ts";
import type { MicropubClient } from "./micropub-client.ts";
import { MicropubSourceError } from "./micropub-source-error.ts";
import { micropubOrigin } from "./micropub-source-options.ts";
import { MicropubSourceState, type MicropubSourceStatus } from "./micropub-source-state.ts";
import type { RemotePost } from "./remote-post.ts";

/** An unavailable remote is asked again after 1, 2, 4 … minutes, never later than an hour. */
const FIRST_BACKOFF_MS = 60_000;
const MAX_BACKOFF_MS = 3_600_000;
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

export interface MicropubSourceReport {
  origin: string;
  endpoint: string;
  state: "ok" | "refused" | "unavailable" | "invalid" | "waiting";
  /** A poll of this process is under way. */
  polling: boolean;
  nextPollAt: Date | null;
  lastPollAt: Date | null;
  lastSuccessAt: Date | null;
  error: string | null;
}

const sameLinks = (a: LinkState, b: LinkState) =>
  JSON.stringify([[...a.syndication].sort(), [...a.syndicateTo].sort()]) ===
  JSON.stringify([[...b.syndication].sort(), [...b.syndicateTo].sort()]);

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class MicropubSource implements PolledSource, PostOrigin {
  readonly origin: string;
  readonly endpoint: string;
  readonly #deps: MicropubSourceDependencies;
  readonly #state: MicropubSourceState;
  readonly #now: () => number;
  /** The next poll as this process knows it; the database's row decides between instances. */
  #nextPollAt: Date;
  /** Each post's merges one at a time: a poll and a write-back of the same post never interleave. */
  readonly #queues = new Map<string, Promise<unknown>>();
  /** Posts whose row this source is changing itself: their write-back is this source's own doing. */
  readonly #applying = new Set<string>();
  /** Whether this process has looked for write-backs owed since before it started. */
  #caughtUp = false;
  /** Whether a poll of this process is under way. */
  #polling = false;

  constructor(deps: MicropubSourceDependencies) {
    this.#deps = deps;
    this.origin = micropubOrigin(deps.name);
    this.endpoint = deps.client.endpoint;
    this.#now = deps.now ?? Date.now;
    this.#state = new MicropubSourceState(deps.database, this.origin);
    this.#nextPollAt = new Date(this.#now());
  }

  nextPollAt(): Date | null {
    return this.#nextPollAt;
  }

  async pollIfDue(): Promise<void> {
    // A process that starts after a crash owes the write-backs the last one did not finish: at
    // once, whether or not the listing's turn has come.
    if (!this.#caughtUp) {
      this.#caughtUp = true;
      await this.#catchUp();
    }
    const now = this.#now();
    if (now < this.#nextPollAt.getTime()) return;
    this.#polling = true;
    try {
      await this.#pollTurn(now);
    } catch (error) {
      // Shutting down: the turn taken lapses by itself, and the write-backs owed wait for the next start.
      if (!this.#deps.signal?.aborted) throw error;
    } finally {
      this.#polling = false;
    }
  }

  /** Resolves once nothing this source started is under way (for a shutdown, after aborting). */
  async idle(): Promise<void> {
    while (this.#queues.size > 0) await Promise.allSettled([...this.#queues.values()]);
  }

  async #pollTurn(now: number): Promise<void> {
    const interval = this.#deps.pollSeconds * 1000;
    // The turn is held for one interval: an instance that dies mid-poll leaves it to the next.
    if (!(await this.#state.takeTurn(new Date(now), new Date(now + interval)))) {
      const status = await this.#state.status();
      this.#nextPollAt = status?.nextPollAt ?? new Date(now + interval);
      return;
    }
    let next = new Date(now + interval);
    let failure: { kind: MicropubSourceError["kind"]; message: string } | undefined;
    try {
      const summary = await this.poll();
      this.#deps.logger.debug(`Polled ${this.origin}`, { ...summary });
    } catch (error) {
      if (!(error instanceof MicropubSourceError)) throw error;
      failure = { kind: error.kind, message: error.message };
      if (error.kind === "unavailable") {
        const failures = (await this.#state.status())?.failures ?? 0;
        const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** failures);
        const asked = (error.retryAfterSeconds ?? 0) * 1000;
        next = new Date(now + Math.min(interval, Math.max(backoff, asked)));
      }
      const log = error.isConfiguration ? this.#deps.logger.error : this.#deps.logger.warn;
      log.call(this.#deps.logger, `Could not read the posts of ${this.origin}: ${error.message}`);
    }
    await this.#state.finishPoll(new Date(this.#now()), next, failure);
    this.#nextPollAt = next;
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
        await this.#one(remote.url, async () => {
          const outcome = await this.#mirror(remote);
          if (outcome === "skipped") summary.skipped += 1;
          else {
            summary.recorded[outcome.recorded] += 1;
            if (outcome.writtenBack) summary.writtenBack += 1;
          }
        });
      }
    }
    summary.writtenBack += await this.#writeBackDrifted(seen);
    return summary;
  }

  /**
   * Writes back every post whose row drifted from what it agreed on with the remote (a write-back
   * the remote never got), except those in `done`. Returns how many updates were sent.
   */
  async #writeBackDrifted(done: ReadonlySet<string> = new Set()): Promise<number> {
    let sent = 0;
    for (const url of await this.#state.drifted()) {
      if (done.has(url)) continue;
      await this.#one(url, async () => {
        const local = await this.#deps.known.findByUrl(url);
        if (!local) return;
        const remote = await this.#deps.client.read(url);
        if (!remote) {
          // Gone there: nothing can take the links any more; they stay here.
          this.#deps.logger.warn(`${url} is no longer on ${this.endpoint}; its links are kept here only`);
          await this.#state.agree(url, linkStateOf(local.properties));
          return;
        }
        if (await this.#merge(local, remote)) sent += 1;
      });
    }
    return sent;
  }

  /** The write-backs owed, outside a poll; what goes wrong is kept for the page and left to the poll. */
  async #catchUp(): Promise<void> {
    try {
      await this.#writeBackDrifted();
    } catch (error) {
      if (!(error instanceof MicropubSourceError)) throw error;
      await this.#state.noteError({ kind: error.kind, message: error.message });
    }
  }

  /**
   * The core wrote links back to one of this source's posts (its row holds them now): carry them
   * to the remote, in the background, so that a slow remote never holds up a run. A failure is
   * kept for the page and /health and left to the next poll, which finds the post drifted from
   * what the remote last agreed on (and so does a process that stops before it is sent).
   */
  async writeBack(post: Post, _update: PostUpdate): Promise<void> {
    if (this.#applying.has(post.url) || this.#deps.signal?.aborted) return;
    void this.#one(post.url, async () => {
      try {
        const remote = await this.#deps.client.read(post.url);
        if (!remote) {
          this.#deps.logger.warn(
            `${post.url} is no longer on ${this.endpoint}; its links are kept here only`,
          );
          return;
        }
        // The row as it is now: another change may have followed the one that called.
        const local = (await this.#deps.known.findByUrl(post.url)) ?? post;
        await this.#merge(local, remote);
        await this.#state.noteError(null);
      } catch (error) {
        if (this.#deps.signal?.aborted) return;
        if (error instanceof MicropubSourceError)
          await this.#state.noteError({ kind: error.kind, message: error.message });
        this.#deps.logger.warn(
          `Could not write the links of ${post.url} back to ${this.endpoint} (the next poll tries again): ${describe(error)}`,
        );
      }
    }).catch((error: unknown) => {
      // Even recording the error failed (the database is going away): the next poll finds the post.
      this.#deps.logger.error(`Could not write the links of ${post.url} back`, { error: describe(error) });
    });
  }

  /** What the page and /health show of this source. */
  async report(): Promise<MicropubSourceReport> {
    const status: MicropubSourceStatus | null = await this.#state.status();
    return {
      origin: this.origin,
      endpoint: this.endpoint,
      polling: this.#polling,
      state: status ? (status.error?.kind ?? (status.lastSuccessAt ? "ok" : "waiting")) : "waiting",
      nextPollAt: status?.nextPollAt ?? this.#nextPollAt,
      lastPollAt: status?.lastPollAt ?? null,
      lastSuccessAt: status?.lastSuccessAt ?? null,
      error: status?.error?.message ?? null,
    };
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
    const writtenBack = await this.#merge(recorded.post, remote);
    return { recorded: recorded.outcome, writtenBack };
  }

  /**
   * Merges a post's links three ways (link-merge.ts): the row takes what changed on the remote,
   * the remote what changed here, and the result is agreed once the remote has it. True when an
   * update was sent to the remote. A post the remote refuses alone (a 400) is logged and left.
   */
  async #merge(local: Post, remote: RemotePost): Promise<boolean> {
    const base = await this.#state.agreed(remote.url);
    const merge = mergeLinks(base, linkStateOf(remote.properties), linkStateOf(local.properties));
    if (merge.localChanged) await this.#applyLocally(local.url, merge.merged);
    if (merge.remoteUpdate) {
      try {
        await this.#deps.client.update(remote.url, merge.remoteUpdate);
      } catch (error) {
        if (error instanceof MicropubSourceError && error.kind === "invalid") {
          this.#deps.logger.warn(`${this.endpoint} refused the links of ${remote.url}: ${error.message}`);
          return false;
        }
        throw error;
      }
    }
    if (!base || !sameLinks(base, merge.merged)) await this.#state.agree(remote.url, merge.merged);
    return merge.remoteUpdate !== undefined;
  }

  /** The row takes the links the remote changed (a new target there, a link removed there). */
  async #applyLocally(url: string, links: LinkState): Promise<void> {
    const update: PostUpdate = {
      replace: { syndication: links.syndication, "mp-syndicate-to": links.syndicateTo },
    };
    this.#applying.add(url);
    try {
      await this.#deps.posts.update(url, update);
    } finally {
      this.#applying.delete(url);
    }
  }

  /** Runs `work` after whatever this source is doing with the same post. */
  #one(url: string, work: () => Promise<void>): Promise<void> {
    const previous = this.#queues.get(url) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(work);
    this.#queues.set(url, next);
    return next.finally(() => {
      if (this.#queues.get(url) === next) this.#queues.delete(url);
    });
  }
}
