// The posts a batch walks, one after another across pages and passes: each with what the ledger and
// the page hold of it, read a page of posts at a time. The batch looks at the next post while the
// current one is sent (`peek`), so that its claim can ride the current post's write-back even across
// a page's end (decision 0080); it then takes that same post (`take`).

import type { AwaitingCursor, Post } from "../../contract/posts.ts";
import type { KnownOfPost } from "./syndicate-post.ts";

/** A post as its page listed it, with what was read beside it. */
export interface Listed {
  post: Post;
  known: KnownOfPost | undefined;
}

export interface AwaitingPostsSource {
  /** A page of awaiting posts after `cursor` (PostSource.nextAwaitingSyndication, configured targets only). */
  list(cursor: AwaitingCursor | undefined, limit: number): Promise<Post[]>;
  /** What the ledger and the page hold of these posts (PostRunner.knownOf). */
  knownOf(posts: readonly Post[]): Promise<Map<string, KnownOfPost>>;
}

/** Posts listed at a time. */
const PAGE = 100;

/**
 * Passes over the awaiting posts, oldest first, each handing out the posts not handed out yet. A
 * post published during a pass after the cursor is met in that pass; one that arrives behind the
 * cursor (an older `published`) is met by the next. The walk ends after a pass that found nothing
 * new. Memory grows with the number of posts handed out (a few dozen bytes each), not with results.
 *
 * Nothing here is read again on a timer: a post edited since its page was read is found out by its
 * claim, which compares it (ledger/as-listed.ts), and read again by the batch.
 */
export class AwaitingPosts {
  private readonly handedOut = new Set<string>();
  private page: Post[] = [];
  private known = new Map<string, KnownOfPost>();
  private cursor: AwaitingCursor | undefined;
  /** Whether the current pass found any post; a pass that found none ends the walk. */
  private foundInPass = false;
  private ended = false;
  private ahead: Listed | undefined;

  constructor(private readonly source: AwaitingPostsSource) {}

  /** The post `take` will hand out next, read from the next page when this one is done; undefined at the end. */
  async peek(): Promise<Listed | undefined> {
    this.ahead ??= await this.following();
    return this.ahead;
  }

  /** The next post, the one `peek` showed if it was called; undefined at the end. */
  async take(): Promise<Listed | undefined> {
    const taken = this.ahead ?? (await this.following());
    this.ahead = undefined;
    return taken;
  }

  private async following(): Promise<Listed | undefined> {
    while (!this.ended) {
      const post = this.page.shift();
      if (post) {
        if (this.handedOut.has(post.id)) continue;
        this.handedOut.add(post.id);
        this.foundInPass = true;
        return { post, known: this.known.get(post.id) };
      }
      await this.nextPage();
    }
    return undefined;
  }

  /** Lists the page after the cursor; after the last page, starts the next pass or ends the walk. */
  private async nextPage(): Promise<void> {
    const page = await this.source.list(this.cursor, PAGE);
    const last = page.at(-1);
    if (!last) {
      // Even after a short page: posts published meanwhile after the cursor join this pass.
      this.ended = !this.foundInPass;
      this.foundInPass = false;
      this.cursor = undefined;
      return;
    }
    this.cursor = { published: last.published, id: last.id };
    const fresh = page.filter((post) => !this.handedOut.has(post.id));
    this.page = fresh;
    this.known = await this.source.knownOf(fresh);
  }
}
