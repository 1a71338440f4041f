// The batch's walk over the awaiting posts (decision 0080): oldest first, a page at a time after a
// cursor, each post handed out once across pages and passes, with what was read beside it; a pass that
// finds nothing new ends the walk; `peek` shows the post `take` hands out next, reading the next page
// when this one is done. A slip would send a post twice, skip one, or never end.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AwaitingCursor, Post } from "../../contract/posts.ts";
import { AwaitingPosts, type AwaitingPostsSource, type Listed } from "./awaiting-posts.ts";
import type { KnownOfPost } from "./syndicate-post.ts";

function post(id: number): Post {
  const published = new Date(Date.UTC(2024, 0, 1, 0, id));
  return {
    id: String(id),
    url: `https://site.example/${id}`,
    properties: { type: "entry", published: published.toISOString() },
    status: "published",
    published,
    created: published,
    updated: published,
    deleted: false,
  };
}

/** What the ledger "holds" of a post: told apart by post so that a mix-up shows. */
function knownOf(id: string): KnownOfPost {
  return { entries: [], ownTexts: new Map(), threadChoices: new Map([[`https://t.example/${id}`, true]]) };
}

/**
 * A source holding `posts` (ordered by published, then id), answering at most `pageSize` a page
 * (fewer than asked, as any page may be), and recording what it was asked.
 */
class FakeSource implements AwaitingPostsSource {
  readonly lists: { cursor: AwaitingCursor | undefined; limit: number }[] = [];
  readonly knownAsked: string[][] = [];
  /** Called after each list, to change the posts between pages. */
  onList: (call: number) => void = () => {};
  constructor(
    public posts: Post[],
    private readonly pageSize = 2,
  ) {}

  async list(cursor: AwaitingCursor | undefined, limit: number): Promise<Post[]> {
    this.lists.push({ cursor, limit });
    const after = this.posts.filter(
      (p) =>
        !cursor ||
        p.published.getTime() > cursor.published.getTime() ||
        (p.published.getTime() === cursor.published.getTime() && p.id > cursor.id),
    );
    const page = after.slice(0, Math.min(limit, this.pageSize));
    this.onList(this.lists.length);
    return page;
  }

  async knownOf(posts: readonly Post[]): Promise<Map<string, KnownOfPost>> {
    this.knownAsked.push(posts.map((p) => p.id));
    return new Map(posts.map((p) => [p.id, knownOf(p.id)]));
  }
}

/** Takes until the walk ends, at most `limit` posts (a walk that never ends fails, not hangs). */
async function takeAll(walk: AwaitingPosts, limit = 30): Promise<Listed[]> {
  const taken: Listed[] = [];
  for (let i = 0; i < limit; i++) {
    const next = await walk.take();
    if (!next) return taken;
    taken.push(next);
  }
  assert.fail(`the walk did not end after ${limit} posts`);
}

const ids = (listed: readonly Listed[]) => listed.map((l) => l.post.id);

describe("the awaiting posts a batch walks", () => {
  it("hands out every post once, oldest first, across pages, each with what was read beside it", async () => {
    const source = new FakeSource([1, 2, 3, 4, 5].map(post));
    const taken = await takeAll(new AwaitingPosts(source));
    assert.deepEqual(ids(taken), ["1", "2", "3", "4", "5"]);
    for (const listed of taken) assert.deepEqual(listed.known, knownOf(listed.post.id));
    assert.equal(taken[2]?.post, source.posts[2]);
  });

  it("lists a hundred posts a page, each page after the last post of the one before, and starts each pass afresh", async () => {
    const source = new FakeSource([1, 2, 3].map(post));
    await takeAll(new AwaitingPosts(source));
    const third = source.posts[2];
    const second = source.posts[1];
    assert.ok(second && third);
    assert.deepEqual(source.lists, [
      { cursor: undefined, limit: 100 },
      { cursor: { published: second.published, id: "2" }, limit: 100 },
      { cursor: { published: third.published, id: "3" }, limit: 100 },
      // The pass found posts: a second one, from the start, finds nothing new and ends the walk.
      { cursor: undefined, limit: 100 },
      { cursor: { published: second.published, id: "2" }, limit: 100 },
      { cursor: { published: third.published, id: "3" }, limit: 100 },
    ]);
  });

  it("reads what the ledger holds only of posts not handed out yet", async () => {
    const source = new FakeSource([1, 2, 3].map(post));
    await takeAll(new AwaitingPosts(source));
    assert.deepEqual(source.knownAsked, [["1", "2"], ["3"], [], []]);
  });

  it("meets a post that arrives behind the cursor in the next pass, and one after it in the same pass", async () => {
    const source = new FakeSource([2, 4].map(post), 1);
    source.onList = (call) => {
      // After the first page: an older post (behind the cursor) and a newer one (after it).
      if (call === 1) source.posts = [1, 2, 4, 5].map(post);
    };
    const taken = await takeAll(new AwaitingPosts(source));
    assert.deepEqual(ids(taken), ["2", "4", "5", "1"]);
  });

  it("ends on an empty source after one page, and stays ended", async () => {
    const source = new FakeSource([]);
    const walk = new AwaitingPosts(source);
    assert.equal(await walk.peek(), undefined);
    assert.equal(await walk.take(), undefined);
    assert.equal(await walk.take(), undefined);
    assert.equal(source.lists.length, 1);
  });

  it("hands out a post its page lists twice only once", async () => {
    const source = new FakeSource([]);
    const one = post(1);
    let calls = 0;
    source.list = async () => (calls++ === 0 ? [one, one] : []);
    assert.deepEqual(ids(await takeAll(new AwaitingPosts(source))), ["1"]);
  });

  it("peek shows the post take hands out next, without handing it out twice or skipping one", async () => {
    const source = new FakeSource([1, 2, 3].map(post));
    const walk = new AwaitingPosts(source);
    assert.equal((await walk.peek())?.post.id, "1");
    assert.equal((await walk.peek())?.post.id, "1", "a second peek shows the same post");
    const first = await walk.take();
    assert.equal(first?.post.id, "1");
    assert.deepEqual(first?.known, knownOf("1"));
    // Across a page's end (the pages hold 2): peek reads the next page.
    assert.equal((await walk.take())?.post.id, "2");
    assert.equal((await walk.peek())?.post.id, "3");
    assert.equal((await walk.take())?.post.id, "3");
    assert.equal(await walk.peek(), undefined);
    assert.equal(await walk.take(), undefined);
  });
});
