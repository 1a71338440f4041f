// The copies' links of posts from elsewhere, carried to the Micropub server where the posts live:
// a remote Micropub source's server (both ways: micropub-source.ts), or a feed's own site, when the
// user gave its Micropub endpoint (one way, the links added: src/sources/feeds). The core writes a
// copy's link to the post's row; this sends it on with a Micropub update, in the background, so
// that a slow server never holds up a run.
//
// Nothing is lost between the copy and the write-back, and nothing is sent twice: the row holds
// the link as soon as the copy is made (the core's ledger guarantees the send), and until the
// server confirms it, the row differs from what both sides last agreed on (micropub-source-state.ts).
// Each turn (the scheduler's, once per interval, shared by instances, sooner after a failure with
// a backoff) looks for such posts and writes them back, whether the server was down when the copy
// was made or the process stopped in between; a process that starts does so at once. The update
// is made from the server's post as read just before (q=source&url=), so a link it holds already
// is never added again; and the read, the update and the agreement are made holding the post's
// claim in the database (link-claims.ts), so that two instances sharing it never both read the
// post before either updates it (a server that appends what it is given would show the link twice).
//
// @example
//   const links = new LinkWriteBack({ origin: "feed:https://blog.example/feed.xml", client, database,
//                                     known: server.knownPosts, logger, merge: addedLinks, oneWay: true });
//   server.knownPosts.addOrigin(links);                     // writeBack after each copy
//   await links.pollIfDue(300_000, async () => ({ writtenBack: await links.writeBackDrifted() }), "write …");
import type { Database } from "../../contract/database.ts";
import { databaseNow } from "../../contract/database-now.ts";
import type { KnownPosts, PostOrigin } from "../../contract/known-posts.ts";
import type { Logger } from "../../contract/logger.ts";
import type { PostSource } from "../../contract/post-source.ts";
import type { Post, PostUpdate } from "../../contract/posts.ts";
import { type BackoffRule, backoffMs } from "../../net/backoff.ts";
import { type HeldClaim, LinkClaims } from "./link-claims.ts";
import { type LinkMerge, type LinkState, linkStateOf } from "./link-merge.ts";
import type { MicropubClient } from "./micropub-client.ts";
import { MicropubSourceError } from "./micropub-source-error.ts";
import { MicropubSourceState, type MicropubSourceStatus } from "./micropub-source-state.ts";
import type { RemotePost } from "./remote-post.ts";

/** An unavailable server is asked again after 1, 2, 4 … minutes, never later than an hour. */
const UNAVAILABLE_BACKOFF: BackoffRule = { baseMs: 60_000, maxMs: 3_600_000 };
/**
 * A post's claim holds for a read and an update, each up to the client's timeout, twice over; it
 * is renewed before the update, so only a holder that crashed or hangs lets it run out.
 */
const CLAIM_LEASE_TIMEOUTS = 4;

/** How the row's links and the server's meet (link-merge.ts: mergeLinks both ways, addedLinks one way). */
export type LinkMergeRule = (base: LinkState | undefined, remote: LinkState, local: LinkState) => LinkMerge;

export interface LinkWriteBackDependencies {
  /** The posts' origin (`micropub:blog`, `feed:<key>`). */
  origin: string;
  client: MicropubClient;
  database: Database;
  known: KnownPosts;
  logger: Logger;
  merge: LinkMergeRule;
  /**
   * One way: only the copies' links go to the server, never back, and a post never agreed on is
   * owed its links too (a feed's posts are recorded without asking the server).
   */
  oneWay?: boolean;
  /** The core's post source: the row takes what the server changed (two-way rules only). */
  posts?: PostSource;
  /** Milliseconds; Date.now unless a test gives its clock. */
  now?: () => number;
  /** Aborted when the server shuts down (the client's requests end with it too). */
  signal?: AbortSignal;
}

export interface LinkWriteBackReport {
  origin: string;
  endpoint: string;
  state: "ok" | "refused" | "unavailable" | "invalid" | "waiting";
  /** A turn of this process is under way. */
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

export class LinkWriteBack implements PostOrigin {
  readonly origin: string;
  readonly endpoint: string;
  readonly state: MicropubSourceState;
  /** Which instance reads and updates a post right now (link-claims.ts). */
  readonly claims: LinkClaims;
  readonly #deps: LinkWriteBackDependencies;
  readonly #now: () => number;
  /** The next turn as this process knows it; the database's row decides between instances. */
  #nextPollAt: Date;
  /** Each post's merges one at a time: a poll and a write-back of the same post never interleave. */
  readonly #queues = new Map<string, Promise<unknown>>();
  /** Posts whose row this is changing itself: their write-back is this one's own doing. */
  readonly #applying = new Set<string>();
  /** Whether this process has looked for write-backs owed since before it started. */
  #caughtUp = false;
  /** Whether a turn of this process is under way. */
  #polling = false;

  constructor(deps: LinkWriteBackDependencies) {
    this.#deps = deps;
    this.origin = deps.origin;
    this.endpoint = deps.client.endpoint;
    this.#now = deps.now ?? Date.now;
    const at = databaseNow(deps.now);
    this.state = new MicropubSourceState(deps.database, deps.origin, { oneWay: deps.oneWay ?? false }, at);
    this.claims = new LinkClaims(
      deps.database,
      deps.origin,
      CLAIM_LEASE_TIMEOUTS * deps.client.timeoutMs,
      at,
    );
    this.#nextPollAt = new Date(this.#now());
  }

  nextPollAt(): Date | null {
    return this.#nextPollAt;
  }

  /**
   * Runs `work` (a poll of the server, or the write-backs owed) when this origin's turn has come,
   * holding the turn for `intervalMs`; an unavailable server is asked again sooner, with a backoff.
   * `what` says in the log what could not be done ("read the posts of …").
   */
  async pollIfDue(intervalMs: number, work: () => Promise<object>, what: string): Promise<void> {
    // A process that starts after a crash owes the write-backs the last one did not finish: at
    // once, whether or not the turn has come.
    if (!this.#caughtUp) {
      this.#caughtUp = true;
      await this.#catchUp();
    }
    const now = this.#now();
    if (now < this.#nextPollAt.getTime()) return;
    this.#polling = true;
    try {
      await this.#turn(now, intervalMs, work, what);
    } catch (error) {
      // Shutting down: the turn taken lapses by itself, and the write-backs owed wait for the next start.
      if (!this.#deps.signal?.aborted) throw error;
    } finally {
      this.#polling = false;
    }
  }

  /** Resolves once nothing this started is under way (for a shutdown, after aborting). */
  async idle(): Promise<void> {
    while (this.#queues.size > 0) await Promise.allSettled([...this.#queues.values()]);
  }

  async #turn(now: number, interval: number, work: () => Promise<object>, what: string): Promise<void> {
    // The turn is held for one interval: an instance that dies mid-turn leaves it to the next.
    if (!(await this.state.takeTurn(interval))) {
      const status = await this.state.status();
      this.#nextPollAt = status?.nextPollAt ?? new Date(now + interval);
      return;
    }
    let nextInMs = interval;
    let failure: { kind: MicropubSourceError["kind"]; message: string } | undefined;
    try {
      const summary = await work();
      this.#deps.logger.debug(`Polled ${this.origin}`, { ...summary });
    } catch (error) {
      if (!(error instanceof MicropubSourceError)) throw error;
      failure = { kind: error.kind, message: error.message };
      if (error.kind === "unavailable") {
        const failures = (await this.state.status())?.failures ?? 0;
        const backoff = backoffMs(UNAVAILABLE_BACKOFF, failures);
        const asked = (error.retryAfterSeconds ?? 0) * 1000;
        nextInMs = Math.min(interval, Math.max(backoff, asked));
      }
      const log = error.isConfiguration ? this.#deps.logger.error : this.#deps.logger.warn;
      log.call(this.#deps.logger, `Could not ${what}: ${error.message}`);
    }
    // The database's moment (or the test's): this process's own clock may be a little apart.
    this.#nextPollAt = (await this.state.finishPoll(nextInMs, failure)) ?? new Date(now + nextInMs);
  }

  /**
   * Writes back every post whose row drifted from what it agreed on with the server (a write-back
   * the server never got), except those in `done`. Returns how many updates were sent. Throws
   * MicropubSourceError when the server refuses the token or cannot be reached. A post another
   * instance holds is left to it (asked to look again).
   */
  async writeBackDrifted(done: ReadonlySet<string> = new Set()): Promise<number> {
    let sent = 0;
    for (const url of await this.state.drifted()) {
      if (done.has(url)) continue;
      await this.one(url, async () => {
        if (await this.#underClaim(url, (claim) => this.#carry(url, claim))) sent += 1;
      });
    }
    return sent;
  }

  /** The write-backs owed, outside a turn; what goes wrong is kept for the page and left to the turn. */
  async #catchUp(): Promise<void> {
    try {
      await this.writeBackDrifted();
    } catch (error) {
      if (!(error instanceof MicropubSourceError)) throw error;
      await this.state.noteError({ kind: error.kind, message: error.message });
    }
  }

  /**
   * The core wrote links back to one of these posts (its row holds them now): carry them to the
   * server, in the background, so that a slow server never holds up a run. A failure is kept for
   * the page and /health and left to the next turn, which finds the post drifted from what the
   * server last agreed on (and so does a process that stops before it is sent).
   */
  async writeBack(post: Post, _update: PostUpdate): Promise<void> {
    if (this.#applying.has(post.url) || this.#deps.signal?.aborted) return;
    void this.one(post.url, async () => {
      try {
        // The row as it is now (another change may have followed the one that called), under the
        // post's claim: the turn of another instance may be carrying the same link.
        const held = await this.#underClaim(post.url, (claim) => this.#carry(post.url, claim));
        if (held !== undefined) await this.state.noteError(null);
      } catch (error) {
        if (this.#deps.signal?.aborted) return;
        if (error instanceof MicropubSourceError)
          await this.state.noteError({ kind: error.kind, message: error.message });
        this.#deps.logger.warn(
          `Could not write the links of ${post.url} back to ${this.endpoint} (the next turn tries again): ${describe(error)}`,
        );
      }
    }).catch((error: unknown) => {
      // Even recording the error failed (the database is going away): the next turn finds the post.
      this.#deps.logger.error(`Could not write the links of ${post.url} back`, { error: describe(error) });
    });
  }

  /** What the page and /health show of this write-back. */
  async report(): Promise<LinkWriteBackReport> {
    const status: MicropubSourceStatus | null = await this.state.status();
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

  /**
   * A post as a poll listed it: its links merged with the server's by the rule (link-merge.ts),
   * the row taking what changed on the server (two-way rules), the server what changed here, and
   * the result agreed once the server has it. True when an update was sent. Anything to carry is
   * carried under the post's claim, from the server's post read again unless the listing needs
   * only agreeing on (another instance may have updated it since the listing).
   */
  async mergeListed(local: Post, listed: RemotePost): Promise<boolean> {
    const base = await this.state.agreed(local.url);
    const merge = this.#deps.merge(base, linkStateOf(listed.properties), linkStateOf(local.properties));
    if (base && !merge.localChanged && !merge.remoteUpdate && sameLinks(base, merge.merged)) return false;
    return (await this.#underClaim(local.url, (claim) => this.#carry(local.url, claim, listed))) ?? false;
  }

  /**
   * Runs `carry` holding the post's claim, then, before letting go, once more for each instance
   * that found it held meanwhile. Resolves to whether an update was sent, or undefined when another
   * instance holds the claim (it was asked to look again, and does).
   */
  async #underClaim(
    url: string,
    carry: (claim: HeldClaim) => Promise<boolean>,
  ): Promise<boolean | undefined> {
    const claim = await this.claims.take(url);
    if (!claim) return undefined;
    let sent: boolean;
    try {
      sent = await carry(claim);
      while ((await claim.release()) === "asked-again") sent = (await this.#carry(url, claim)) || sent;
    } catch (error) {
      await claim.drop().catch(() => undefined);
      throw error;
    }
    return sent;
  }

  /**
   * Merges the post's links with the server's (the claim held): true when an update was sent. The
   * server's post is read now, unless `listed` (a poll's listing, a moment ago) needs only agreeing
   * on. A post the server refuses alone (a 400) is logged and left.
   */
  async #carry(url: string, claim: HeldClaim, listed?: RemotePost): Promise<boolean> {
    const local = await this.#deps.known.findByUrl(url);
    if (!local) return false;
    const base = await this.state.agreed(url);
    const mergeWith = (remote: RemotePost) =>
      this.#deps.merge(base, linkStateOf(remote.properties), linkStateOf(local.properties));
    let remote = listed;
    let merge: LinkMerge | undefined = listed ? mergeWith(listed) : undefined;
    if (!merge || merge.localChanged || merge.remoteUpdate) {
      const now = await this.#deps.client.read(url);
      if (!now) {
        // Gone there: nothing can take the links any more; they stay here.
        this.#deps.logger.warn(`${url} is no longer on ${this.endpoint}; its links are kept here only`);
        await this.state.agree(url, linkStateOf(local.properties));
        return false;
      }
      remote = now;
      merge = mergeWith(now);
    }
    if (!remote) return false;
    if (merge.localChanged) await this.#applyLocally(local.url, merge.merged);
    if (merge.remoteUpdate) {
      // Held too long (a hung server): another instance may have it now, and reads before it adds.
      if (!(await claim.renew())) {
        this.#deps.logger.warn(`The write-back of ${url} outlasted its claim; another instance carries it`);
        return false;
      }
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
    if (!base || !sameLinks(base, merge.merged)) await this.state.agree(url, merge.merged);
    return merge.remoteUpdate !== undefined;
  }

  /** The row takes the links the server changed (a new target there, a link removed there). */
  async #applyLocally(url: string, links: LinkState): Promise<void> {
    const posts = this.#deps.posts;
    if (!posts) throw new Error(`${this.origin} takes no links from ${this.endpoint}`);
    const update: PostUpdate = {
      replace: { syndication: links.syndication, "mp-syndicate-to": links.syndicateTo },
    };
    this.#applying.add(url);
    try {
      await posts.update(url, update);
    } finally {
      this.#applying.delete(url);
    }
  }

  /** Runs `work` after whatever this is doing with the same post. */
  one(url: string, work: () => Promise<void>): Promise<void> {
    const previous = this.#queues.get(url) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(work);
    this.#queues.set(url, next);
    return next.finally(() => {
      if (this.#queues.get(url) === next) this.#queues.delete(url);
    });
  }
}
