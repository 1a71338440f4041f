// Every change made through the post service goes to the content store (decision 0032). A new post the
// store refuses is not kept (the Micropub request fails and can be sent again, nothing half-written);
// a change to a post already recorded is kept, queued, retried by itself and shown on the status
// page, never silently lost. Changes made inside `writeTogether` (a syndication run writing its
// copies' links back) reach the store together when it ends: one commit per run.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Database } from "../../contract/database.ts";
import { Listeners } from "../../contract/listeners.ts";
import type { Post, PostChange } from "../../contract/posts.ts";
import { type BackoffRule, backoffMs } from "../../net/backoff.ts";
import type { Logger } from "../logger.ts";
import type { PostService } from "../posts/post-service-interface.ts";
import { type ContentStore, type StoreAction, StoreError } from "./content-store.ts";

const STORE_RETRY: BackoffRule = { baseMs: 30_000, maxMs: 3_600_000 };

/** Waits between retries of a change the store refused: 30 s, doubled each time, at most an hour. */
export function retryDelayMs(attempts: number): number {
  return backoffMs(STORE_RETRY, attempts - 1);
}

export interface PublishingSummary {
  store: Record<string, unknown>;
  /** Posts whose change the store has not taken yet. */
  pending: number;
  lastError?: string;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class PublishingPosts implements PostService {
  /** A listener's fault must not fail the change that was made. */
  private readonly listeners = new Listeners<PostChange>();
  /** The posts changed inside the current writeTogether, by id. */
  private readonly together = new AsyncLocalStorage<Set<string>>();
  private opened = false;

  constructor(
    private readonly inner: PostService,
    readonly store: ContentStore,
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  onChange(listener: (change: PostChange) => void): () => void {
    return this.listeners.add(listener);
  }

  private notify(change: PostChange): Post {
    this.listeners.tell(change);
    return change.post;
  }

  async create(input: Parameters<PostService["create"]>[0]): Promise<Post> {
    const post = await this.inner.create(input);
    try {
      await this.store.publish([post], "Create");
    } catch (error) {
      // Not kept: the client is told, and sending the post again makes it once.
      await this.database.query("DELETE FROM posts WHERE id = $1::bigint", [post.id]);
      throw asStoreError(error);
    }
    return this.notify({ kind: "create", post });
  }

  async update(url: string, update: Parameters<PostService["update"]>[1]): Promise<Post> {
    return this.published(await this.inner.update(url, update), update);
  }

  async updateAlongside(
    url: string,
    update: Parameters<PostService["update"]>[1],
    alongside: Parameters<PostService["updateAlongside"]>[2],
  ): ReturnType<PostService["updateAlongside"]> {
    const updated = await this.inner.updateAlongside(url, update, alongside);
    await this.published(updated.post, update);
    return updated;
  }

  /**
   * Inside writeTogether a change is kept for the end: nothing after the statement's commit waits
   * on the store (decision 0075). Outside it, the store is reached before the write-back returns.
   */
  returnsOnCommit(post: Post): boolean {
    return this.together.getStore() !== undefined && this.inner.returnsOnCommit?.(post) === true;
  }

  /** An updated post on its way to the store, and to those listening. */
  private async published(post: Post, update: Parameters<PostService["update"]>[1]): Promise<Post> {
    const failure = await this.reach(post, "Update");
    this.notify({ kind: "update", post, update });
    if (failure) throw failure;
    return post;
  }

  delete(url: string): Promise<Post> {
    return this.change("delete", url);
  }

  undelete(url: string): Promise<Post> {
    return this.change("undelete", url);
  }

  private async change(kind: "delete" | "undelete", url: string): Promise<Post> {
    const post = await (kind === "delete" ? this.inner.delete(url) : this.inner.undelete(url));
    const failure = await this.reach(post, kind === "delete" ? "Delete" : "Undelete");
    this.notify({ kind, post });
    if (failure) throw failure;
    return post;
  }

  /**
   * Takes a recorded change to the store, or (inside writeTogether) keeps it for the end. A refusal
   * is queued for a retry and returned.
   */
  private async reach(post: Post, action: StoreAction): Promise<StoreError | undefined> {
    const together = this.together.getStore();
    if (together) {
      together.add(post.id);
      return undefined;
    }
    try {
      await this.store.publish([post], action);
      await this.database.query("DELETE FROM publication_pending WHERE post_id = $1::bigint", [post.id]);
      return undefined;
    } catch (error) {
      const failure = asStoreError(error);
      failure.recorded = true;
      await this.queue([post.id], action, failure.message);
      return failure;
    }
  }

  /**
   * Runs `work`; the changes it makes reach the store together when it ends, as one change (one
   * commit), even when it throws. A refusal is queued and retried, not thrown: the work is done.
   */
  async writeTogether<T>(work: () => Promise<T>): Promise<T> {
    if (this.together.getStore()) return work();
    const changed = new Set<string>();
    try {
      return await this.together.run(changed, work);
    } finally {
      await this.flush(changed);
    }
  }

  private async flush(changed: Set<string>): Promise<void> {
    if (changed.size === 0) return;
    const ids = [...changed];
    try {
      const posts = (await Promise.all(ids.map((id) => this.inner.findById(id)))).filter(
        (post): post is Post => post !== null,
      );
      // What a run changes is the links it writes back (and the targets it has done with).
      await this.store.publish(posts, "Syndication links");
      await this.database.query("DELETE FROM publication_pending WHERE post_id = ANY($1::bigint[])", [ids]);
    } catch (error) {
      this.logger.error("The site's store refused the links written back; retrying later", {
        posts: ids.length,
        error: describe(error),
      });
      await this.queue(ids, "Syndication links", describe(error)).catch((queueError: unknown) =>
        this.logger.error("Could not queue the write-back for a retry", { error: describe(queueError) }),
      );
    }
  }

  private async queue(ids: readonly string[], action: StoreAction, error: string): Promise<void> {
    const next = new Date(this.now().getTime() + retryDelayMs(1));
    await this.database.query(
      `INSERT INTO publication_pending (post_id, action, last_error, next_attempt_at)
       SELECT id, $2, $3, $4::timestamptz FROM unnest($1::bigint[]) AS id
       ON CONFLICT (post_id) DO UPDATE SET last_error = EXCLUDED.last_error, updated_at = now()`,
      [ids, action, error, next.toISOString()],
    );
  }

  /**
   * Finishes what the store was left with (a commit not pushed), then retries the queued changes
   * that are due, all in one change. Called at start and by the host's timer.
   */
  async retryPending(now = this.now()): Promise<number> {
    if (!this.opened) {
      try {
        await this.store.open?.();
        this.opened = true;
      } catch (error) {
        this.logger.error("The site's store could not finish what it was left with; retrying later", {
          error: describe(error),
        });
        return 0;
      }
    }
    const { rows } = await this.database.query<{ post_id: string; attempts: number }>(
      "SELECT post_id::text AS post_id, attempts FROM publication_pending WHERE next_attempt_at <= $1::timestamptz ORDER BY post_id LIMIT 500",
      [now.toISOString()],
    );
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => row.post_id);
    try {
      const posts = (await Promise.all(ids.map((id) => this.inner.findById(id)))).filter(
        (post): post is Post => post !== null,
      );
      await this.store.publish(posts, "Update");
      await this.database.query("DELETE FROM publication_pending WHERE post_id = ANY($1::bigint[])", [ids]);
      this.logger.info("The site's store took the changes it had refused", { posts: ids.length });
      return ids.length;
    } catch (error) {
      for (const row of rows) {
        const next = new Date(now.getTime() + retryDelayMs(row.attempts + 1));
        await this.database.query(
          `UPDATE publication_pending SET attempts = attempts + 1, last_error = $2, next_attempt_at = $3::timestamptz,
             updated_at = now() WHERE post_id = $1::bigint`,
          [row.post_id, describe(error), next.toISOString()],
        );
      }
      return 0;
    }
  }

  async summary(): Promise<PublishingSummary> {
    const { rows } = await this.database.query<{ pending: number; last_error: string | null }>(
      `SELECT count(*)::int AS pending, (SELECT last_error FROM publication_pending ORDER BY updated_at DESC LIMIT 1) AS last_error
         FROM publication_pending`,
    );
    const row = rows[0];
    return {
      store: this.store.describe?.() ?? { type: this.store.type },
      pending: row?.pending ?? 0,
      ...(row?.last_error ? { lastError: row.last_error } : {}),
    };
  }

  // Reads pass through.
  findByUrl = (url: string) => this.inner.findByUrl(url);
  findById = (id: string) => this.inner.findById(id);
  list: PostService["list"] = (options) => this.inner.list(options);
  nextAwaitingSyndication: PostService["nextAwaitingSyndication"] = (...args) =>
    this.inner.nextAwaitingSyndication(...args);
  countAwaitingSyndication: PostService["countAwaitingSyndication"] = (targets) =>
    this.inner.countAwaitingSyndication(targets);
  listAwaitingSyndication: PostService["listAwaitingSyndication"] = (options) =>
    this.inner.listAwaitingSyndication(options);
  categories: PostService["categories"] = (options) => this.inner.categories(options);
  namesUrl: PostService["namesUrl"] = (url) => this.inner.namesUrl(url);
}

function asStoreError(error: unknown): StoreError {
  return error instanceof StoreError ? error : new StoreError(describe(error));
}
