// Decision 0034: the copy's link of a post from elsewhere is written to its row and
// handed to its origin's adapter (which would update the real site); the site's own content store
// never receives it: no file, no commit. The site's own post sent in the same run is written to the
// store as before.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Post, PostUpdate } from "../../src/contract/posts.ts";
import { type PublishingWorld, startPublishingWorld } from "../publishing/publishing-world.ts";

/** Every file under a folder, with its text. */
function filesUnder(folder: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path, readFileSync(path, "utf8"));
  }
  return files;
}

/** The copies' links a post holds. */
const links = (post: Post | null | undefined): unknown[] =>
  Array.isArray(post?.properties.syndication) ? post.properties.syndication : [];

describe("the write-back of a post from elsewhere", () => {
  let world: PublishingWorld;
  let site: string;
  const writtenBack: Array<{ post: Post; update: PostUpdate }> = [];
  /** The origin's answer to the next write-back: taken, or refused (its site unreachable). */
  let originRefuses = false;
  /** When set, the origin answers only once it resolves (a slow site). */
  let originWaits: Promise<void> | undefined;
  let originCalled: (() => void) | undefined;

  before(async () => {
    site = mkdtempSync(join(tmpdir(), "possekit-site-"));
    world = await startPublishingWorld({
      publication: { store: { type: "folder", path: site }, preset: "hugo" },
      schedule: false,
    });
    world.server.host.knownPosts?.addOrigin({
      origin: "feed:blog",
      async writeBack(post, update) {
        writtenBack.push({ post, update });
        originCalled?.();
        if (originWaits) await originWaits;
        if (originRefuses) throw new Error("blog.example: 503 Service Unavailable");
      },
    });
  });
  after(async () => {
    await world.close();
    rmSync(site, { recursive: true, force: true });
  });

  it("updates its row and tells its origin, and writes nothing to the store", async () => {
    const known = world.server.host.knownPosts;
    assert.ok(known);
    const own = await world.micropub({
      type: ["h-entry"],
      properties: { content: ["The site's own post"], "mp-slug": ["own"], "mp-syndicate-to": [world.uid] },
    });
    assert.equal(own.status, 201);
    const { post: foreign } = await known.record({
      origin: "feed:blog",
      url: "https://blog.example/2026/from-the-feed/",
      published: new Date("2026-01-02T10:00:00Z"),
      properties: { content: "A post from the feed", "mp-syndicate-to": [world.uid] },
    });
    const filesBefore = filesUnder(site);
    assert.equal(filesBefore.size, 1, "the own post's file");

    const response = await fetch(`${world.server.url}/syndicate`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.token}`, accept: "application/json" },
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { summary: { syndicated: number } };
    assert.equal(body.summary.syndicated, 2);

    const copy = world.social.statuses.find((status) => status.text.startsWith("A post from the feed"));
    assert.ok(copy, "the post from elsewhere was sent");
    const row = await known.findByUrl(foreign.url);
    assert.deepEqual(row?.properties.syndication, [copy.url], "its row holds the copy's link");

    assert.equal(writtenBack.length, 1, "its origin was told once");
    assert.equal(writtenBack[0]?.post.url, foreign.url);
    assert.deepEqual(writtenBack[0]?.update.add, { syndication: [copy.url] });
    assert.deepEqual(writtenBack[0]?.post.properties.syndication, [copy.url], "after the row took it");

    const filesAfter = filesUnder(site);
    assert.deepEqual([...filesAfter.keys()], [...filesBefore.keys()], "no file for the post from elsewhere");
    const ownFile = [...filesAfter.values()][0] ?? "";
    assert.match(ownFile, /syndication:/, "the own post's file took its copy's link");
    for (const text of filesAfter.values()) assert.doesNotMatch(text, /from the feed|blog\.example/);
  });

  it("a change outside a run (a confirmed copy, a skip, Send on the feeds page) goes the same way", async () => {
    // Those pages change a post through the post source's plain `update`, not the run's
    // `updateAlongside` (decision 0061): the same promise, the row and the origin, never the store.
    const source = world.server.host.postSource;
    assert.ok(source);
    const url = "https://blog.example/2026/from-the-feed/";
    const filesBefore = filesUnder(site);
    const told = writtenBack.length;
    const confirmed = "https://social.example/@me/confirmed-by-hand";
    const updated = await source.update(url, { add: { syndication: [confirmed] } });
    assert.ok(links(updated).includes(confirmed));
    const row = await world.server.host.knownPosts?.findByUrl(url);
    assert.ok(links(row).includes(confirmed), "its row holds the link");
    assert.equal(writtenBack.length, told + 1, "its origin was told once");
    assert.deepEqual(writtenBack.at(-1)?.update, { add: { syndication: [confirmed] } });
    assert.ok(links(writtenBack.at(-1)?.post).includes(confirmed), "after the row took it");
    const filesAfter = filesUnder(site);
    assert.deepEqual(filesAfter, filesBefore, "the store is not touched");

    // An origin that refuses is its own to retry: the change stands in the row, and is not undone.
    originRefuses = true;
    const later = "https://social.example/@me/confirmed-later";
    const stands = await source.update(url, { add: { syndication: [later] } });
    originRefuses = false;
    assert.ok(links(stands).includes(later));
    assert.equal(writtenBack.length, told + 2, "its origin was asked");
    const kept = await world.server.host.knownPosts?.findByUrl(url);
    assert.deepEqual(links(kept).slice(-2), [confirmed, later]);
  });

  it("a post from elsewhere commits alone: the site's own next post is claimed only once its origin has answered", async () => {
    // Decision 0075: a batch's next post is claimed inside the previous post's write-back only when
    // nothing after that commit waits on the network; an origin's write-back is a request.
    const known = world.server.host.knownPosts;
    const source = world.server.host.postSource;
    const database = world.server.host.database;
    assert.ok(known && source && database);
    const { post: foreign } = await known.record({
      origin: "feed:blog",
      url: "https://blog.example/2026/slow-origin/",
      published: new Date("2026-01-03T10:00:00Z"),
      properties: { content: "A post whose origin answers slowly", "mp-syndicate-to": [world.uid] },
    });
    const own = await world.micropub({
      type: ["h-entry"],
      properties: {
        content: ["The site's own post after it"],
        published: ["2026-01-03T11:00:00Z"],
        "mp-slug": ["own-after"],
        "mp-syndicate-to": [world.uid],
      },
    });
    assert.equal(own.status, 201);
    const ownUrl = own.headers.get("location") ?? "";
    // The source's promise, post by post: the site's own post inside writeTogether only.
    assert.equal(source.returnsOnCommit?.(foreign), false, "a post whose origin is told after the commit");
    const ownPost = await source.findByUrl(ownUrl);
    assert.ok(ownPost);
    assert.equal(
      source.returnsOnCommit?.(ownPost),
      false,
      "outside writeTogether the store is reached first",
    );
    assert.equal(
      await source.writeTogether?.(async () => source.returnsOnCommit?.(ownPost)),
      true,
      "inside writeTogether the store is reached at the end",
    );

    let release!: () => void;
    originWaits = new Promise<void>((resolve) => {
      release = resolve;
    });
    const called = new Promise<void>((resolve) => {
      originCalled = resolve;
    });
    const response = fetch(`${world.server.url}/syndicate`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.token}`, accept: "application/json" },
    });
    await called;
    const { rows } = await database.query<{ state: string }>(
      "SELECT state FROM syndication_targets WHERE post_id = $1::bigint",
      [ownPost.id],
    );
    assert.deepEqual(rows, [], "nothing of the own post is claimed while the origin is awaited");
    release();
    originWaits = undefined;
    originCalled = undefined;
    assert.equal((await response).status, 200);
    const after = await database.query<{ state: string }>(
      "SELECT state FROM syndication_targets WHERE post_id = $1::bigint",
      [ownPost.id],
    );
    assert.deepEqual(after.rows, [{ state: "syndicated" }]);
  });
});
